package dev.aorta.workloads.harness;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.gpu.cuda.DeviceInfo;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuStream;
import dev.aorta.workloads.session.GpuTelemetry;
import dev.aorta.workloads.metrics.ConvoyEffect;
import dev.aorta.core.metric.DispatchLatency;
import dev.aorta.core.metric.IntervalSet;
import dev.aorta.core.metric.KernelBreakdown;
import dev.aorta.core.metric.QueueSwitchOverhead;
import dev.aorta.core.metric.SampleStats;
import dev.aorta.workloads.spi.ConvoyRoles;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.Workload;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Runs one workload: creates its streams, sets it up, warms up, measures the iterations untraced in the chosen
 * {@link SyncMode} (throughput, iteration times, host enqueue), checks the output, then runs a few more iterations
 * under CUPTI or event-pair sampling for the per-kernel device timeline (per-stream busy time, gaps, convoys, the
 * workloads' own results), computes the metrics, and tears down.
 */
public final class Harness {
    /** Environment variables that change how the device schedules streams, recorded with every result. */
    public static final List<String> RECORDED_ENV = List.of("CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_VISIBLE_DEVICES",
            "CUDA_LAUNCH_BLOCKING", "CUDA_MODULE_LOADING", "CUDA_DEVICE_ORDER");

    /**
     * Every iteration the harness runs (warm-up, measured, traced) is marked as one for the agent; tests put a recorder
     * here. The plain single-stream baseline loop is not: it is a different program.
     */
    static IterationMarks marks = IterationMarks.AORTA;

    private final Map<String, String> envVars;
    private final boolean baselineLoop;

    /**
     * @param envVars      the recorded environment as the device sees it (null values: unset)
     * @param baselineLoop also time the workload's plain single-stream loop, when it has one
     */
    public Harness(Map<String, String> envVars, boolean baselineLoop) {
        this.envVars = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(envVars));
        this.baselineLoop = baselineLoop;
    }

    /** Checks options against the workload before any GPU work: the error names the option. */
    public static void validate(Workload workload, HarnessOptions options) {
        if (!workload.streamRange().contains(options.streams())) {
            throw new IllegalArgumentException("--streams " + options.streams() + " is outside the range of "
                    + workload.name() + ": " + workload.streamRange() + " streams");
        }
        Map<String, WorkloadParameter> known = workload.parameters().stream()
                .collect(Collectors.toMap(WorkloadParameter::name, p -> p, (a, b) -> a, TreeMap::new));
        for (Map.Entry<String, String> given : options.params().entrySet()) {
            WorkloadParameter parameter = known.get(given.getKey());
            if (parameter == null) {
                throw new IllegalArgumentException("--param " + given.getKey() + ": " + workload.name()
                        + (known.isEmpty() ? " has no parameters" : " has the parameters " + known.keySet()));
            }
            parameter.check(given.getValue());
        }
        if (options.dtype() != HarnessOptions.defaults(1).dtype() && !workload.usesDtype()) {
            throw new IllegalArgumentException("--dtype: " + workload.name() + " has no GEMMs, so no dtype to set");
        }
    }

    public RunResult run(Workload workload, HarnessOptions options, GpuSession gpu) {
        validate(workload, options);
        DeviceInfo device = gpu.deviceInfo();
        List<GpuStream> streams = new ArrayList<>();
        List<String> roles = new ArrayList<>();
        List<GpuEvent> events = new ArrayList<>();
        GpuStream timing = null;
        HarnessContext context = null;
        Throwable failure = null;
        GpuTelemetry before = gpu.telemetry();
        try {
            for (int i = 0; i < options.streams(); i++) {
                streams.add(gpu.createStream(workload.urgentStream(i, options.streams())
                        ? device.priorityRange().greatest()
                        : options.priorityMode().priorityFor(i, options.streams(), device.priorityRange())));
                roles.add(workload.streamRole(i, options.streams()));
            }
            timing = gpu.createStream(device.priorityRange().least());
            context = new HarnessContext(gpu, streams, roles, options, workload);
            workload.setup(context);
            gpu.synchronize();

            String captureUnavailable = gpu.activityCaptureUnavailableReason();
            if (captureUnavailable != null && options.kernelTiming() == KernelTimingMode.CUPTI) {
                throw new IllegalStateException("--kernel-timing cupti: CUPTI is unavailable: " + captureUnavailable);
            }
            if (captureUnavailable == null && options.kernelTiming() == KernelTimingMode.EVENT_PAIRS) {
                captureUnavailable = "not used: --kernel-timing event-pairs";
            }
            TimingSource source = captureUnavailable == null ? TimingSource.CUPTI : TimingSource.EVENT_PAIRS_SAMPLED;

            // the measured loop runs untraced: a profiler must not change the throughput it reports (CUPTI's kernel
            // records cost the host per launch and widen the device's gaps between kernels by microseconds)
            for (int i = 0; i < options.warmup(); i++) {
                marks.begin();
                workload.runIteration(i);
                if (options.syncMode() == SyncMode.PER_ITERATION) {
                    gpu.synchronize();
                }
                marks.end();
            }
            gpu.synchronize();
            Measurement m = new Measurement(options.iterations());
            long wallStart = System.nanoTime();
            measure(workload, options, gpu, streams, timing, m, events);
            m.wallNs = System.nanoTime() - wallStart;
            RunResult.Telemetry telemetry = new RunResult.Telemetry(before, gpu.telemetry());
            workload.afterMeasuredIterations();
            Throughput throughput = workload.throughput(options.iterations(), m.totalMs);

            RunResult.Correctness correctness = workload.hasCorrectnessCheck()
                    ? new RunResult.Correctness(true, workload.correctnessProblem().orElse(null))
                    : new RunResult.Correctness(false, null);

            // the device timeline comes from iterations of its own, after the check
            Timeline timeline = source == TimingSource.CUPTI
                    ? traceWithCupti(workload, options, gpu)
                    : sampleWithEventPairs(workload, options, gpu, context, streams, timing, events,
                    m.launches[options.iterations() - 1], captureUnavailable);
            List<List<DeviceActivity>> windows = timeline.windows();

            RunResult.BaselineLoop baseline = baselineLoop && workload.hasBaselineLoop()
                    ? measureBaselineLoop(workload, options, gpu, streams.getFirst(), events) : null;
            if (baseline != null) {
                baseline = new RunResult.BaselineLoop(baseline.iterations(), baseline.totalTimeMs(),
                        baseline.throughput(), throughput.value() / baseline.throughput().value());
            }

            Map<String, Object> ownResults = workload.results(windows,
                    streams.stream().map(GpuStream::activityStreamId).toList());
            return new RunResult(workload.name(), Instant.now(), options, workload.description(), device, envVars,
                    workloadConfig(workload, context, options, roles),
                    throughput,
                    options.syncMode() == SyncMode.NONE ? null : SampleStats.of(m.iterationMs),
                    options.syncMode() == SyncMode.NONE ? new double[0] : m.iterationMs,
                    m.totalMs, m.wallNs / 1e6,
                    hostEnqueue(m),
                    streamStats(streams, roles, windows),
                    kernelTiming(workload, source, timeline, streams, roles),
                    new RunResult.MemoryReport(gpu.memoryStats()), correctness, windows, baseline, telemetry, ownResults);
        } catch (RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            cleanup(workload, context, events, streams, timing, failure);
        }
    }

    /** Caps the events the fallback creates up front (two per sampled op). */
    static final long MAX_EVENT_PAIRS = 50_000;

    /**
     * Iterations run under CUPTI before the traced ones and discarded: once CUPTI records, the first launch of each
     * kernel is slow by milliseconds (seen on H100/H200: 6-12 ms first iterations of GEMM and NCCL loops).
     */
    static final int TRACED_WARMUP = 2;

    /** Per-iteration raw numbers of the measured loop. */
    private static final class Measurement {
        final double[] iterationMs;
        final long[] hostNs;
        /** API calls that enqueued device work during each iteration's {@code runIteration}. */
        final long[] launches;
        double totalMs;
        long wallNs;

        Measurement(int iterations) {
            iterationMs = new double[iterations];
            hostNs = new long[iterations];
            launches = new long[iterations];
        }
    }

    private static void measure(Workload workload, HarnessOptions options, GpuSession gpu, List<GpuStream> streams,
                                GpuStream timing, Measurement m, List<GpuEvent> events) {
        int n = options.iterations();
        GpuEvent origin = track(gpu.createTimingEvent(), events);
        List<GpuEvent> joins = new ArrayList<>();
        for (int s = 0; s < streams.size(); s++) {
            joins.add(track(gpu.createEvent(), events));
        }
        boolean perIterationEvents = options.syncMode() != SyncMode.NONE;
        GpuEvent[] start = new GpuEvent[n];
        GpuEvent[] end = new GpuEvent[n];
        for (int i = 0; i < n; i++) {
            if (options.syncMode() == SyncMode.PER_ITERATION) {
                start[i] = track(gpu.createTimingEvent(), events);
            }
            if (perIterationEvents || i == n - 1) {
                end[i] = track(gpu.createTimingEvent(), events);
            }
        }
        workload.beforeMeasuredIterations();
        origin.record(timing);
        for (int i = 0; i < n; i++) {
            marks.begin();
            if (start[i] != null) {
                start[i].record(timing);
            }
            long enqueuedBefore = gpu.enqueuedWork();
            long t0 = System.nanoTime();
            workload.runIteration(i);
            m.hostNs[i] = System.nanoTime() - t0;
            m.launches[i] = gpu.enqueuedWork() - enqueuedBefore;
            if (end[i] != null) {
                joinInto(timing, streams, joins);
                end[i].record(timing);
            }
            if (options.syncMode() == SyncMode.PER_ITERATION) {
                end[i].synchronize();
            }
            marks.end();
        }
        gpu.synchronize();
        for (int i = 0; i < n && perIterationEvents; i++) {
            GpuEvent from = options.syncMode() == SyncMode.PER_ITERATION ? start[i] : (i == 0 ? origin : end[i - 1]);
            m.iterationMs[i] = end[i].elapsedMsSince(from);
        }
        if (options.syncMode() == SyncMode.PER_ITERATION) {
            // AORTA's total_time_ms: the iterations' times summed, not the idle turnarounds between them (the host
            // synchronizes after each iteration and only then starts the next)
            m.totalMs = 0;
            for (double ms : m.iterationMs) {
                m.totalMs += ms;
            }
        } else {
            m.totalMs = end[n - 1].elapsedMsSince(origin);
        }
    }

    /** Makes the timing stream wait for everything enqueued so far on every workload stream. */
    private static void joinInto(GpuStream timing, List<GpuStream> streams, List<GpuEvent> joins) {
        for (int s = 0; s < streams.size(); s++) {
            joins.get(s).record(streams.get(s));
            timing.waitEvent(joins.get(s));
        }
    }

    private static GpuEvent track(GpuEvent e, List<GpuEvent> events) {
        events.add(e);
        return e;
    }

    /**
     * Runs {@code count} iterations for the device timeline, numbered from 0, in the run's sync mode, each one sampled
     * by {@code sampler} when there is one, and waits for the device.
     */
    private static void runTraced(Workload workload, HarnessOptions options, GpuSession gpu, int count,
                                  EventPairSampler sampler) {
        for (int i = 0; i < count; i++) {
            marks.begin();
            if (sampler != null) {
                sampler.beginIteration(i, true);
            }
            workload.runIteration(i);
            if (options.syncMode() == SyncMode.PER_ITERATION) {
                gpu.synchronize();
            }
            marks.end();
        }
        if (sampler != null) {
            sampler.beginIteration(count, false);
        }
        gpu.synchronize();
    }

    /**
     * Splits the CUPTI records of the measured loop into iterations: work is numbered in issue order
     * (correlation ids), and every iteration issues the same work, so when the count divides evenly
     * the k-th block of count/iterations records is iteration k. Returns one window otherwise.
     */
    static List<List<DeviceActivity>> splitIntoIterations(List<DeviceActivity> records, int iterations) {
        if (records.isEmpty() || records.size() % iterations != 0) {
            return List.of(records);
        }
        List<DeviceActivity> byIssue = new ArrayList<>(records);
        byIssue.sort(Comparator.comparingLong(DeviceActivity::correlationId));
        int per = records.size() / iterations;
        List<List<DeviceActivity>> windows = new ArrayList<>();
        for (int i = 0; i < iterations; i++) {
            windows.add(List.copyOf(byIssue.subList(i * per, (i + 1) * per)));
        }
        return windows;
    }

    /** Host time per iteration and per launch over the measured iterations, with the launches counted in them. */
    private static RunResult.HostEnqueue hostEnqueue(Measurement m) {
        double[] ms = new double[m.hostNs.length];
        long launchSum = 0;
        long minLaunches = Long.MAX_VALUE;
        long maxLaunches = Long.MIN_VALUE;
        for (int i = 0; i < ms.length; i++) {
            ms[i] = m.hostNs[i] / 1e6;
            launchSum += m.launches[i];
            minLaunches = Math.min(minLaunches, m.launches[i]);
            maxLaunches = Math.max(maxLaunches, m.launches[i]);
        }
        SampleStats stats = SampleStats.of(ms);
        double launches = (double) launchSum / ms.length;
        double usPerLaunch = launches > 0 ? stats.mean() * 1e3 / launches : 0;
        double iterationsPerSecond = 1e3 / stats.mean();
        return new RunResult.HostEnqueue(stats, launches, minLaunches, maxLaunches, usPerLaunch, iterationsPerSecond,
                iterationsPerSecond * launches);
    }

    private static List<RunResult.StreamStats> streamStats(List<GpuStream> streams, List<String> roles,
                                                           List<List<DeviceActivity>> windows) {
        List<RunResult.StreamStats> result = new ArrayList<>();
        for (int i = 0; i < streams.size(); i++) {
            long id = streams.get(i).activityStreamId();
            int total = windows.stream().mapToInt(List::size).sum();
            long[] starts = new long[total];
            long[] ends = new long[total];
            int n = 0;
            long kernelNs = 0;
            for (List<DeviceActivity> w : windows) {
                for (DeviceActivity a : w) {
                    if (a.stream() == id) {
                        starts[n] = a.startNs();
                        ends[n++] = a.endNs();
                        kernelNs += a.durationNs();
                    }
                }
            }
            result.add(new RunResult.StreamStats(i, streams.get(i).priority(), roles.get(i), id, n,
                    IntervalSet.union(starts, ends, n).length() / 1e6, kernelNs / 1e6));
        }
        return result;
    }

    private static RunResult.KernelTiming kernelTiming(Workload workload, TimingSource source, Timeline timeline,
                                                       List<GpuStream> streams, List<String> roles) {
        List<List<DeviceActivity>> windows = timeline.windows();
        // convoys are about kernels; copies and memsets only count as busy time
        List<List<DeviceActivity>> kernelsOnly = windows.stream()
                .map(w -> w.stream().filter(a -> a.kind() == ActivityKind.KERNEL).toList()).toList();
        ConvoyEffect convoy = null;
        if (workload.convoyRoles().isPresent()) {
            ConvoyRoles cr = workload.convoyRoles().get();
            convoy = ConvoyEffect.of(kernelsOnly, streamIdsWithRole(streams, roles, cr.waiting()),
                    streamIdsWithRole(streams, roles, cr.blocking()), cr.waiting(), cr.blocking());
        }
        List<DeviceActivity> all = windows.stream().flatMap(List::stream).toList();
        return new RunResult.KernelTiming(source, timeline.note(), timeline.captured(), all.size(), timeline.untimed(),
                timeline.perIteration(),
                switchOverhead(windows), dispatchLatency(windows), convoy, KernelBreakdown.byName(all));
    }

    /** Queue switch overhead of a run: gaps within each window (iteration), never across two. */
    public static QueueSwitchOverhead switchOverhead(List<List<DeviceActivity>> windows) {
        QueueSwitchOverhead.Builder gaps = new QueueSwitchOverhead.Builder();
        windows.forEach(gaps::addWindow);
        return gaps.build();
    }

    /**
     * Dispatch latency per window from the activities' {@code queued} timestamps (the harness records no event
     * waits). Copies count too: a kernel queued behind a copy on its stream waits for the copy.
     */
    public static DispatchLatency dispatchLatency(List<List<DeviceActivity>> windows) {
        DispatchLatency.Builder b = new DispatchLatency.Builder();
        for (List<DeviceActivity> w : windows) {
            List<DeviceActivity> byStart = new ArrayList<>(w);
            byStart.sort(Comparator.comparingLong(DeviceActivity::startNs));
            long[] queued = byStart.stream().mapToLong(DeviceActivity::queuedNs).toArray();
            DispatchLatency.PerActivity values = DispatchLatency.perActivity(byStart, queued, i -> true, List.of());
            for (int i = 0; i < byStart.size(); i++) {
                b.add(values, i);
            }
        }
        return b.build();
    }

    private static Set<Long> streamIdsWithRole(List<GpuStream> streams, List<String> roles, String role) {
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < streams.size(); i++) {
            if (roles.get(i).equals(role)) {
                ids.add(streams.get(i).activityStreamId());
            }
        }
        return ids;
    }

    private static Map<String, Object> workloadConfig(Workload workload, HarnessContext context, HarnessOptions options,
                                                      List<String> roles) {
        Map<String, Object> config = new LinkedHashMap<>();
        for (WorkloadParameter p : workload.parameters()) {
            config.put(p.name(), p.isChoice() ? context.choiceParameter(p.name()) : context.intParameter(p.name()));
        }
        if (workload.usesDtype()) {
            config.put("dtype", options.dtype().label());
        }
        config.put("stream_roles", List.copyOf(roles));
        return config;
    }

    private static RunResult.BaselineLoop measureBaselineLoop(Workload workload, HarnessOptions options,
                                                              GpuSession gpu, GpuStream stream, List<GpuEvent> events) {
        for (int i = 0; i < Math.min(options.warmup(), 3); i++) {
            workload.runBaselineIteration(i);
        }
        gpu.synchronize();
        GpuEvent start = track(gpu.createTimingEvent(), events);
        GpuEvent end = track(gpu.createTimingEvent(), events);
        start.record(stream);
        for (int i = 0; i < options.iterations(); i++) {
            workload.runBaselineIteration(i);
        }
        end.record(stream);
        end.synchronize();
        double ms = end.elapsedMsSince(start);
        return new RunResult.BaselineLoop(options.iterations(), ms, workload.throughput(options.iterations(), ms), 0);
    }

    private static void stopQuietly(GpuSession gpu, Throwable failure) {
        try {
            gpu.stopActivityCapture();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * The device activity of the traced iterations.
     *
     * @param windows      one list per traced iteration, or one for all of them (see {@code perIteration})
     * @param perIteration whether the windows are iterations
     * @param captured     traced iterations the windows cover
     * @param untimed      launch calls of the traced iterations that went past the event pairs (0 under CUPTI)
     * @param note         where the timestamps came from, for the result
     */
    private record Timeline(List<List<DeviceActivity>> windows, boolean perIteration, int captured, long untimed,
                            String note) {
    }

    /**
     * {@code --timing-samples} iterations under CUPTI, after {@link #TRACED_WARMUP} traced ones whose records are
     * discarded, split into iterations by issue order.
     */
    private static Timeline traceWithCupti(Workload workload, HarnessOptions options, GpuSession gpu) {
        int traced = options.timingSamples();
        List<DeviceActivity> all;
        gpu.startActivityCapture();
        try {
            runTraced(workload, options, gpu, TRACED_WARMUP, null);
            gpu.discardCapturedActivity();
            runTraced(workload, options, gpu, traced, null);
        } catch (RuntimeException | Error e) {
            stopQuietly(gpu, e);
            throw e;
        }
        all = gpu.stopActivityCapture();
        List<List<DeviceActivity>> windows = splitIntoIterations(all, traced);
        boolean perIteration = windows.size() == traced;
        return new Timeline(perIteration ? windows : List.of(all), perIteration, traced, 0,
                "CUPTI records of " + traced + " traced iterations run after the measured ones (after "
                        + TRACED_WARMUP + " traced warm-up iterations, discarded), " + (perIteration
                        ? "gaps per iteration" : "kernel count not a multiple of the traced iterations, so gaps over all"
                        + " of them") + "; throughput and iteration times are from the untraced loop");
    }

    /**
     * What the note says when launches of the sampled iterations bypassed the event pairs: the model module's layers
     * launch through the gpu module directly, not through the harness's ops, so event pairs cannot see them.
     */
    private static String untimedWarning(long untimed, int iterations) {
        if (untimed <= 0) {
            return "";
        }
        return "; NOT TIMED: " + untimed + " launches of the " + iterations + " sampled iterations went past the "
                + "harness's ops (the model module's layers launch on their own), so per-stream times, gaps and kernels "
                + "miss them (all of them when every stream reads 0); --kernel-timing cupti times every kernel";
    }

    /**
     * {@code --timing-samples} iterations with event pairs around every op, after {@link #TRACED_WARMUP} unsampled
     * ones: as many iterations as under CUPTI, because the ranks of one job must issue the same collectives.
     *
     * @param opsPerIteration launches of the last measured iteration: two events per op are made up front
     */
    private static Timeline sampleWithEventPairs(Workload workload, HarnessOptions options, GpuSession gpu,
                                                 HarnessContext context, List<GpuStream> streams, GpuStream timing,
                                                 List<GpuEvent> events, long opsPerIteration, String whyNotCupti) {
        int traced = options.timingSamples();
        Map<GpuStream, Long> ids = new HashMap<>();
        streams.forEach(s -> ids.put(s, s.activityStreamId()));
        runTraced(workload, options, gpu, TRACED_WARMUP, null);
        try (EventPairSampler sampler = new EventPairSampler(gpu,
                (int) Math.min(MAX_EVENT_PAIRS, opsPerIteration * traced), ids)) {
            GpuEvent origin = track(gpu.createTimingEvent(), events);
            origin.record(timing);
            sampler.setOrigin(origin);
            context.setSampler(sampler);
            long launchesBefore = gpu.enqueuedWork();
            try {
                runTraced(workload, options, gpu, traced, sampler);
            } finally {
                context.setSampler(null);
            }
            long untimed = gpu.enqueuedWork() - launchesBefore - sampler.launchesThroughOps();
            List<List<DeviceActivity>> windows = sampler.windows();
            return new Timeline(windows, true, traced, untimed, "CUPTI "
                    + (options.kernelTiming() == KernelTimingMode.EVENT_PAIRS ? "" : "unavailable ")
                    + "(" + whyNotCupti + "); event pairs around every op of " + traced
                    + " sampled iterations run after the measured ones"
                    + (sampler.exhausted() ? " (event pool ran out: partial)" : "")
                    + "; durations include the wait for the device to start the kernel; throughput and iteration "
                    + "times are from the unsampled loop" + untimedWarning(untimed, traced));
        }
    }

    /** Releases everything; a cleanup error is thrown unless the run already failed (then it is attached). */
    private static void cleanup(Workload workload, HarnessContext context, List<GpuEvent> events,
                                List<GpuStream> streams, GpuStream timing, Throwable failure) {
        List<Runnable> steps = new ArrayList<>();
        steps.add(workload::cleanup);
        if (context != null) {
            steps.add(context::close);
        }
        events.forEach(e -> steps.add(e::close));
        streams.forEach(s -> steps.add(s::close));
        if (timing != null) {
            steps.add(timing::close);
        }
        RuntimeException first = null;
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            if (failure != null) {
                failure.addSuppressed(first);
            } else {
                throw first;
            }
        }
    }
}
