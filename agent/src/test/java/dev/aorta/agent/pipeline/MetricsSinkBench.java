package dev.aorta.agent.pipeline;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The metrics sink's own cost on the drain thread: {@code ACTIVITIES} device activities (compute on one stream,
 * NCCL all-reduce on a second, copies on a third, 1000 per iteration, with a flush after each iteration as the
 * drainer does) and the time for them, best of {@code ROUNDS}, as wall time and as the thread's CPU time (steadier on a
 * shared machine). Compare before and after a change to the metrics.
 *
 * <p>Usage: {@code MetricsSinkBench [ACTIVITIES] [ROUNDS] [MAX_RANGES]} (defaults 1000000, 5 and 2000); MAX_RANGES 0
 * leaves out the per-activity {@code ranges} and {@code active_segments} JSON, so that the metrics themselves dominate.
 */
public final class MetricsSinkBench {
    private MetricsSinkBench() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int maxRanges = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long best = Long.MAX_VALUE;
        long bestCpu = Long.MAX_VALUE;
        for (int r = 0; r < rounds; r++) {
            Path file = Files.createTempFile("metrics-bench", ".jsonl");
            long t0 = System.nanoTime();
            long c0 = threads.getCurrentThreadCpuTime();
            feed(file, n, maxRanges);
            long cpu = threads.getCurrentThreadCpuTime() - c0;
            long took = System.nanoTime() - t0;
            best = Math.min(best, took);
            bestCpu = Math.min(bestCpu, cpu);
            System.out.printf("round %d: %.1f ms wall, %.1f ms cpu, %d bytes%n", r, took / 1e6, cpu / 1e6,
                    Files.size(file));
            Files.delete(file);
        }
        System.out.printf("best: %.1f ms wall, %.1f ms cpu for %d activities (%.0f ns cpu/activity)%n", best / 1e6,
                bestCpu / 1e6, n, (double) bestCpu / n);
    }

    private static void feed(Path file, int n, int maxRanges) throws Exception {
        MetricsSink sink = new MetricsSink(file, 0, 1, maxRanges, () -> "cupti", () -> 0L, () -> 0L, () -> -1L);
        int perIteration = 1000;
        long step = 0;
        long iterationStart = 0;
        long t = 0;
        for (int i = 0; i < n; i++) {
            int k = i % 10;
            long stream = k < 7 ? 1 : k < 9 ? 2 : 3;
            ActivityKind kind = k == 9 ? ActivityKind.MEMCPY : ActivityKind.KERNEL;
            String name = k < 7 ? "sm90_xmma_gemm_" + (k % 3) : k < 9 ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL" : "memcpy";
            long start = t + (k >= 7 ? -3_000 : 0);
            sink.activity(new DeviceActivity(kind, name, 0, 0, stream, start, start + 4_000, i, DeviceActivity.UNKNOWN,
                    DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 0, ClockDomain.HOST_MONOTONIC));
            t += 5_000;
            if (i % perIteration == perIteration - 1) {
                sink.marker(new Marker(Marker.Kind.ITERATION, "step", 0, step++, iterationStart, t,
                        ClockDomain.HOST_MONOTONIC));
                iterationStart = t;
                sink.flush();
            }
        }
        sink.close();
    }
}
