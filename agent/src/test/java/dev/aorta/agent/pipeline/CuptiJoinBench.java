package dev.aorta.agent.pipeline;

import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The drain thread's CUPTI path at the load seen on an H100 (launch-overhead, balanced): one application
 * thread issuing 130 000 launches/s and one device→host sync per 6 launches, CUPTI delivering the matching
 * driver API and kernel records in large batches (one 2 MiB buffer ≈ {@code batch} launches). The drain
 * cycles (every 20 ms of the simulated timeline) run as fast as the join and the JSONL writer allow, so the
 * wall time per simulated second says whether the pipeline keeps up (below 1 s) and how far behind it falls.
 *
 * <p>Usage: {@code CuptiJoinBench OUTPUT_FILE SECONDS [PREFILL_MB] [BATCH]}; a non-zero PREFILL_MB writes
 * that much into OUTPUT_FILE first, to see whether an existing output file changes anything. The metrics
 * sink runs beside the JSONL one (writing next to OUTPUT_FILE), as with the agent's default sinks; the
 * workload has no iteration markers, like launch-overhead run under the agent without iteration-method.
 */
public final class CuptiJoinBench {
    static final long OFFSET = 1_000_000_000_000L;  // CUPTI clock ahead of the host clock
    static final long LAUNCH_EVERY_NS = 7_692;      // 130 000 launches/s
    static final int SYNC_EVERY = 6;                // ~24 600 syncs per 147 000 launches
    static final long CYCLE_NS = 20_000_000;        // drain-interval-ms default

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int seconds = Integer.parseInt(args[1]);
        long prefillMb = args.length > 2 ? Long.parseLong(args[2]) : 0;
        int batch = args.length > 3 ? Integer.parseInt(args[3]) : 10_000;
        if (prefillMb > 0) {
            byte[] line = ("{\"type\":\"api\",\"name\":\"previous run\"}" + " ".repeat(985) + "\n").getBytes();
            try (OutputStream o = Files.newOutputStream(file)) {
                for (long i = 0; i < prefillMb * 1024; i++) {
                    o.write(line);
                }
            }
        }
        long openStart = System.nanoTime();
        Fanout out = new Fanout(List.of(new GuardedSink("jsonl", new JsonlSink(file)),
                new GuardedSink("metrics", new MetricsSink(file.resolveSibling("rank_0_metrics.jsonl"), 0, 1, 2000,
                        () -> "cupti", () -> 0L, () -> 0L, () -> -1L))));
        long openNs = System.nanoTime() - openStart;
        long host0 = 1_000_000_000L;
        CuptiCoverage coverage = new CuptiCoverage();
        coverage.subscribing(host0);   // CUPTI runs throughout: every launch is held for its driver call
        CorrelationJoin join = new CorrelationJoin(out, coverage);
        ClockAnchor anchor = new ClockAnchor(ClockDomain.CUPTI, host0 + OFFSET, ClockDomain.HOST_MONOTONIC, host0);
        join.anchor(anchor);
        out.anchor(anchor);

        List<ApiCall> pendingDriver = new ArrayList<>();
        List<DeviceActivity> pendingKernels = new ArrayList<>();
        long t = host0;
        long seq = 0;
        long records = 0;
        long wallStart = System.nanoTime();
        long secondStart = wallStart;
        long end = host0 + seconds * 1_000_000_000L;
        Map<String, Object> launchArgs = Map.of("kind", "launch", "grid_x", 1L, "block_x", 32L);
        Map<String, Object> syncArgs = Map.of("kind", "sync");
        for (long cycleEnd = host0 + CYCLE_NS; cycleEnd <= end; cycleEnd += CYCLE_NS) {
            for (; t < cycleEnd; t += LAUNCH_EVERY_NS) {
                seq++;
                boolean sync = seq % SYNC_EVERY == 0;
                String driverName = sync ? "cuStreamSynchronize" : "cuLaunchKernel";
                pendingDriver.add(new ApiCall(driverName, 123_456, 0, t + 1_000 + OFFSET, t + 5_000 + OFFSET, seq, 0,
                        Map.of(), ClockDomain.CUPTI));
                if (sync) {
                    join.api(CallRecords.of(new ApiCall("cuStreamSynchronize", 1, 0, t, t + 6_000, seq, 0, syncArgs,
                            ClockDomain.HOST_MONOTONIC), CallKind.SYNC));
                } else {
                    join.api(CallRecords.of(new ApiCall("cuLaunchKernel", 1, 0, t, t + 6_000, seq, 0, launchArgs,
                            ClockDomain.HOST_MONOTONIC), CallKind.LAUNCH));
                    pendingKernels.add(new DeviceActivity(ActivityKind.KERNEL, "k", 0, 0, 0, t + 8_000 + OFFSET,
                            t + 9_000 + OFFSET, seq, t + 5_000 + OFFSET, t + 5_200 + OFFSET, new Dim3(1, 1, 1),
                            new Dim3(32, 1, 1), 0, ClockDomain.CUPTI));
                }
                records += sync ? 2 : 3;
            }
            if (pendingDriver.size() >= batch) {   // CUPTI hands over a full buffer
                for (ApiCall c : pendingDriver) {
                    join.driverCall(c);
                }
                for (DeviceActivity a : pendingKernels) {
                    out.activity(a);
                }
                pendingDriver.clear();
                pendingKernels.clear();
            }
            join.release(false);
            out.flush();
            if ((cycleEnd - host0) % 1_000_000_000L == 0) {
                long now = System.nanoTime();
                System.out.printf("simulated second %d: %.2f s wall%n", (cycleEnd - host0) / 1_000_000_000L,
                        (now - secondStart) / 1e9);
                secondStart = now;
            }
        }
        long appDone = System.nanoTime();
        for (ApiCall c : pendingDriver) {   // the exit flush: CUPTI's last, partly filled buffer
            join.driverCall(c);
        }
        for (DeviceActivity a : pendingKernels) {
            out.activity(a);
        }
        join.release(true);
        out.close();
        long exitNs = System.nanoTime() - appDone;
        double wall = (appDone - wallStart) / 1e9;
        System.out.printf("records %d in %.2f s wall while running: %.0f records/s (need %.0f/s to keep up)%n",
                records, wall, records / wall, records / (double) seconds);
        System.out.printf("exit drain: %.3f s; opening the output file: %.3f ms; joined %d; file %d MB%n",
                exitNs / 1e9, openNs / 1e6, join.joined(), Files.size(file) >> 20);
    }
}
