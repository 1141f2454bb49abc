package dev.aorta.agent.pipeline;

import dev.aorta.agent.config.AgentOptions.Category;
import dev.aorta.agent.jfr.JfrSink;
import dev.aorta.agent.recorder.CallBuffer;
import dev.aorta.agent.recorder.CallTable;
import dev.aorta.agent.recorder.TestRings;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * The drain thread's work per record at the rate of issue 16's H100 run: {@value #THREADS} threads launching a tiny
 * kernel each on its own stream, {@value #LAUNCHES_PER_S} launches/s in all, CUPTI running (every launch held for
 * its driver call), and per launch three records for the drain thread: the API row from the thread's ring, CUPTI's
 * driver-API record and its kernel record. Each simulated 20 ms drain cycle: the rows are put in the rings, CUPTI's
 * records of the previous cycle are made (as CUPTI's buffer-completion thread makes them: not timed), then the
 * drain is timed: rings decoded into the join, CUPTI's records into the join and the sinks, release, flush. Only
 * that drain is timed and its allocation and CPU time counted on this thread (records/s a core); the JSONL
 * writer's thread, which formats the lines beside it, is reported by its CPU time per record.
 *
 * <p>Run: {@code ./build -q -o -pl agent -am test-compile dependency:build-classpath -Dmdep.outputFile=target/test.classpath
 * -Dmdep.includeScope=test -Dmaven.test.skip.exec}, then {@code java -cp agent/target/test-classes:agent/target/classes:$(cat
 * agent/target/test.classpath) dev.aorta.agent.pipeline.DrainThroughputBench /tmp/drainbench 4} (JDK 25).
 *
 * <p>Usage: {@code DrainThroughputBench OUTPUT_DIR [SECONDS] [SINKS]}, SINKS a comma list of jsonl, metrics, jfr
 * (default all three, the agent's default) or {@code none}. The first simulated seconds warm the JIT and are not
 * counted; the JSONL goes to OUTPUT_DIR (a real file: the page cache's cost is part of the drain's).
 */
public final class DrainThroughputBench {
    static final int THREADS = 4;
    static final long LAUNCHES_PER_S = 230_000;
    static final long CYCLE_NS = 20_000_000;
    static final long OFFSET = 1_000_000_000_000L;   // CUPTI's clock ahead of the host's
    static final int WARMUP_SECONDS = 3;
    static final long STREAM = 0x7f00_0000_1000L;

    public static void main(String[] args) throws Exception {
        Path dir = Files.createDirectories(Path.of(args[0]));
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        String wanted = args.length > 2 ? args[2] : "jsonl,metrics,jfr";
        List<GuardedSink> list = new ArrayList<>();
        if (wanted.contains("jsonl")) {
            list.add(new GuardedSink("jsonl", new JsonlSink(dir.resolve("rank_0_activity.jsonl"))));
        }
        if (wanted.contains("metrics")) {
            list.add(new GuardedSink("metrics", new MetricsSink(dir.resolve("rank_0_metrics.jsonl"), 0, 1, 2000,
                    () -> "cupti", () -> 0L, () -> 0L, () -> -1L)));
        }
        if (wanted.contains("jfr")) {
            list.add(new GuardedSink("jfr", new JfrSink(null)));
        }
        Fanout sinks = new Fanout(list);
        long host0 = 1_000_000_000L;
        CuptiCoverage coverage = new CuptiCoverage();
        coverage.subscribing(host0);
        CorrelationJoin join = new CorrelationJoin(sinks, coverage);
        ClockAnchor anchor = new ClockAnchor(ClockDomain.CUPTI, host0 + OFFSET, ClockDomain.HOST_MONOTONIC, host0);
        join.anchor(anchor);
        sinks.anchor(anchor);
        CallDecoder decoder = new CallDecoder(sinks, join::api, s -> { }, new IterationTracker(sinks, 0),
                EnumSet.allOf(Category.class));
        int launch = CallTable.register(Interception.of("bench.Driver", "cuLaunchKernel", 11, CallKind.LAUNCH,
                Object.class));
        long perThreadEvery = THREADS * 1_000_000_000L / LAUNCHES_PER_S;
        int perCycle = (int) (CYCLE_NS / perThreadEvery) + 1;
        CallBuffer[] rings = new CallBuffer[THREADS];
        for (int i = 0; i < THREADS; i++) {
            rings[i] = TestRings.ring(Integer.highestOneBit(perCycle) * 4, new Thread("launcher-" + i));
        }
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

        List<Object> cuptiNow = new ArrayList<>();
        List<Object> cuptiNext = new ArrayList<>();
        long seq = 0;
        long timedNs = 0;
        long timedBytes = 0;
        long timedRecords = 0;
        long worstCycleNs = 0;
        long timedCpuNs = 0;
        long writerCpuAtWarm = 0;
        long cycles = (WARMUP_SECONDS + seconds) * 1_000_000_000L / CYCLE_NS;
        for (long c = 0; c < cycles; c++) {
            long cycleStart = host0 + c * CYCLE_NS;
            int records = 0;
            for (int i = 0; i < THREADS; i++) {
                long t = cycleStart + i * 1_000;
                for (int k = 0; k < perCycle; k++, t += perThreadEvery) {
                    seq++;
                    long stream = STREAM + 0x100L * i;
                    TestRings.put(rings[i], launch, t, t + 3_000, stream, 0, 1, 1, 1, 32, 1, 1, 0, 0x7f00_0000_9000L);
                    cuptiNext.add(new Drainer.DriverCall(new ApiCall("cuLaunchKernel", 4_000 + i, 0,
                            t + 500 + OFFSET, t + 2_500 + OFFSET, seq, 0, Map.of(), ClockDomain.CUPTI)));
                    cuptiNext.add(new DeviceActivity(ActivityKind.KERNEL, "tiny_kernel", 0, 0, stream,
                            t + 4_000 + OFFSET, t + 5_000 + OFFSET, seq, t + 2_000 + OFFSET, t + 2_200 + OFFSET,
                            new Dim3(1, 1, 1), new Dim3(32, 1, 1), 0, ClockDomain.CUPTI));
                    records += 3;
                }
            }
            long bytes0 = mx.getCurrentThreadAllocatedBytes();
            long cpu0 = mx.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            for (CallBuffer ring : rings) {
                ring.drain(decoder);
            }
            for (Object o : cuptiNow) {   // CUPTI's records of the cycle before: the join held its launches
                if (o instanceof Drainer.DriverCall d) {
                    join.driverCall(d.call());
                } else {
                    sinks.activity((DeviceActivity) o);
                }
            }
            join.release(false);
            sinks.flush();
            long ns = System.nanoTime() - t0;
            long cpu = mx.getCurrentThreadCpuTime() - cpu0;
            long allocated = mx.getCurrentThreadAllocatedBytes() - bytes0;
            List<Object> swap = cuptiNow;
            cuptiNow = cuptiNext;
            cuptiNext = swap;
            cuptiNext.clear();
            if (c == WARMUP_SECONDS * 1_000_000_000L / CYCLE_NS - 1) {
                writerCpuAtWarm = writerCpuNs(mx);
            }
            if (c >= WARMUP_SECONDS * 1_000_000_000L / CYCLE_NS) {
                timedCpuNs += cpu;
                timedNs += ns;
                timedBytes += allocated;
                timedRecords += records;
                worstCycleNs = Math.max(worstCycleNs, ns);
            }
        }
        long writerCpu = writerCpuNs(mx) - writerCpuAtWarm;   // before close: its thread ends there
        sinks.close();
        System.out.printf("sinks=%s: %d records (%d launches/s from %d threads, %d s) drained in %.3f s: "
                        + "%.0f records/s, %.0f ns/record, %.1f bytes allocated/record, worst 20 ms cycle %.1f ms"
                        + " (joined %d, unjoined %d)%n",
                wanted, timedRecords, LAUNCHES_PER_S, THREADS, seconds, timedNs / 1e9, timedRecords / (timedNs / 1e9),
                (double) timedNs / timedRecords, (double) timedBytes / timedRecords, worstCycleNs / 1e6, join.joined(),
                join.unjoined());
        System.out.printf("  drain thread CPU %.0f ns/record (%.0f records/s a core); JSONL writer thread CPU %.0f ns/record%n",
                (double) timedCpuNs / timedRecords, timedRecords / (timedCpuNs / 1e9), (double) writerCpu / timedRecords);
    }

    /** CPU time of the JSONL writer's thread so far (0 without one). */
    private static long writerCpuNs(com.sun.management.ThreadMXBean mx) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("aorta-jsonl")) {
                return mx.getThreadCpuTime(t.getId());
            }
        }
        return 0;
    }
}
