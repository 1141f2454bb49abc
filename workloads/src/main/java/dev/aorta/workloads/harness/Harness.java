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
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Runs one workload: creates its streams, sets it up, warms up, measures the iterations in the chosen
 * {@link SyncMode}, captures per-kernel device timestamps, computes the metrics, and tears down.
 */
public final class Harness {
    /** Environment variables that change how the device schedules streams, recorded with every result. */
    public static final List<String> RECORDED_ENV = List.of("CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_VISIBLE_DEVICES",
            "CUDA_LAUNCH_BLOCKING", "CUDA_MODULE_LOADING", "CUDA_DEVICE_ORDER");

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
        EventPairSampler sampler = null;
        boolean capturing = false;
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
            if (source == TimingSource.CUPTI) {
                // before the warmup: once CUPTI records, the first launch of each kernel is slow by milliseconds
                // (seen on H100/H200: 6-12 ms first iterations of GEMM and NCCL loops); the warmup absorbs it
                // and its records are discarded when the measured loop starts
                gpu.startActivityCapture();
                capturing = true;
            }
            long lastWarmupLaunches = -1;
            for (int i = 0; i < options.warmup(); i++) {
                long enqueuedBefore = gpu.enqueuedWork();
                workload.runIteration(i);
                lastWarmupLaunches = gpu.enqueuedWork() - enqueuedBefore;
                if (options.syncMode() == SyncMode.PER_ITERATION) {
                    gpu.synchronize();
                }
            }
            gpu.synchronize();
            Set<Integer> sampled = Set.of();
            if (source == TimingSource.EVENT_PAIRS_SAMPLED) {
                sampled = sampledIterations(options.iterations(), options.timingSamples());
                Map<GpuStream, Long> ids = new HashMap<>();
                streams.forEach(s -> ids.put(s, s.activityStreamId()));
                // two events per op of a sampled iteration, as many ops as the last warmup iteration enqueued; with
                // no warmup nothing has been counted before the measured loop, so the pool gets the cap
                long perIteration = lastWarmupLaunches >= 0 ? lastWarmupLaunches : MAX_EVENT_PAIRS;
                long pairs = Math.min(MAX_EVENT_PAIRS, perIteration * sampled.size());
                sampler = new EventPairSampler(gpu, (int) pairs, ids);
                context.setSampler(sampler);
            }

            Measurement m = new Measurement(options.iterations());
            GpuEvent origin = gpu.createTimingEvent();
            events.add(origin);
            if (sampler != null) {
                sampler.setOrigin(origin);
            }
            long wallStart = System.nanoTime();
            measure(workload, options, gpu, streams, timing, origin, sampler, sampled, m, events);
            m.wallNs = System.nanoTime() - wallStart;

            List<List<DeviceActivity>> windows;
            boolean perIteration;
            String sourceNote;
            int captured;
            if (sampler == null) {
                capturing = false;
                List<DeviceActivity> all = gpu.stopActivityCapture();
                windows = splitIntoIterations(all, options.iterations());
                perIteration = windows.size() == options.iterations();
                if (!perIteration) {
                    windows = List.of(all);
                }
                captured = options.iterations();
                sourceNote = perIteration ? "CUPTI records of all measured iterations, gaps per iteration"
                        : "CUPTI records of all measured iterations; kernel count not a multiple of iterations, "
                                + "so gaps over the whole run";
            } else {
                windows = sampler.windows();
                perIteration = true;
                captured = windows.size();
                sourceNote = "CUPTI " + (options.kernelTiming() == KernelTimingMode.EVENT_PAIRS ? "" : "unavailable ")
                        + "(" + captureUnavailable + "); event pairs around every op of "
                        + captured + " sampled iterations" + (sampler.exhausted() ? " (event pool ran out: partial)" : "")
                        + "; durations include the wait for the device to start the kernel";
            }

            RunResult.Correctness correctness = workload.hasCorrectnessCheck()
                    ? new RunResult.Correctness(true, workload.correctnessProblem().orElse(null))
                    : new RunResult.Correctness(false, null);
            RunResult.BaselineLoop baseline = baselineLoop && workload.hasBaselineLoop()
                    ? measureBaselineLoop(workload, options, gpu, streams.getFirst(), events) : null;
            if (baseline != null) {
                Throughput harnessTp = workload.throughput(options.iterations(), m.totalMs);
                baseline = new RunResult.BaselineLoop(baseline.iterations(), baseline.totalTimeMs(),
                        baseline.throughput(), harnessTp.value() / baseline.throughput().value());
            }

            RunResult.Telemetry telemetry = new RunResult.Telemetry(before, gpu.telemetry());
            Map<String, Object> ownResults = workload.results(windows,
                    streams.stream().map(GpuStream::activityStreamId).toList());
            return new RunResult(workload.name(), Instant.now(), options, workload.description(), device, envVars,
                    workloadConfig(workload, context, options, roles),
                    workload.throughput(options.iterations(), m.totalMs),
                    options.syncMode() == SyncMode.NONE ? null : SampleStats.of(m.iterationMs),
                    options.syncMode() == SyncMode.NONE ? new double[0] : m.iterationMs,
                    m.totalMs, m.wallNs / 1e6,
                    hostEnqueue(m, sampled),
                    streamStats(streams, roles, windows),
                    kernelTiming(workload, source, sourceNote, captured, perIteration, windows, streams, roles),
                    new RunResult.MemoryReport(gpu.memoryStats()), correctness, windows, baseline, telemetry, ownResults);
        } catch (RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            if (capturing) {
                stopQuietly(gpu, failure);
            }
            cleanup(workload, context, sampler, events, streams, timing, failure);
        }
    }

    /** Caps the events the fallback creates up front (two per sampled op). */
    static final long MAX_EVENT_PAIRS = 50_000;

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
                                GpuStream timing, GpuEvent origin, EventPairSampler sampler, Set<Integer> sampled,
                                Measurement m, List<GpuEvent> events) {
        int n = options.iterations();
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
        if (sampler == null) {  // timed by CUPTI, capturing since before the warmup
            gpu.synchronize();
            gpu.discardCapturedActivity();  // the warmup's and the hook's records: only measured work is kept
        }
        origin.record(timing);
        for (int i = 0; i < n; i++) {
            if (sampler != null) {
                sampler.beginIteration(i, sampled.contains(i));
            }
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
        }
        if (sampler != null) {
            sampler.beginIteration(n, false);
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

    /** {@code count} iterations spread evenly over {@code iterations}, the first and the middle ones included. */
    static Set<Integer> sampledIterations(int iterations, int count) {
        Set<Integer> result = new TreeSet<>();
        int k = Math.min(count, iterations);
        for (int j = 0; j < k; j++) {
            result.add((int) ((long) j * iterations / k));
        }
        return result;
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

    /**
     * Host time per iteration and per launch over the measured iterations that event-pair sampling left alone (all of
     * them when every one was sampled); launches are those the session counted during the same iterations.
     */
    private static RunResult.HostEnqueue hostEnqueue(Measurement m, Set<Integer> sampled) {
        int n = m.hostNs.length;
        boolean keepAll = n == sampledCount(n, sampled);
        List<Double> ms = new ArrayList<>();
        long launchSum = 0;
        long minLaunches = Long.MAX_VALUE;
        long maxLaunches = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            if (keepAll || !sampled.contains(i)) {
                ms.add(m.hostNs[i] / 1e6);
                launchSum += m.launches[i];
                minLaunches = Math.min(minLaunches, m.launches[i]);
                maxLaunches = Math.max(maxLaunches, m.launches[i]);
            }
        }
        SampleStats stats = SampleStats.of(ms.stream().mapToDouble(Double::doubleValue).toArray());
        double launches = (double) launchSum / ms.size();
        double usPerLaunch = launches > 0 ? stats.mean() * 1e3 / launches : 0;
        double iterationsPerSecond = 1e3 / stats.mean();
        return new RunResult.HostEnqueue(stats, launches, minLaunches, maxLaunches, usPerLaunch, iterationsPerSecond,
                iterationsPerSecond * launches, n - ms.size());
    }

    private static int sampledCount(int iterations, Set<Integer> sampled) {
        return (int) sampled.stream().filter(i -> i < iterations).count();
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

    private static RunResult.KernelTiming kernelTiming(Workload workload, TimingSource source, String note,
                                                       int captured, boolean perIteration,
                                                       List<List<DeviceActivity>> windows, List<GpuStream> streams,
                                                       List<String> roles) {
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
        return new RunResult.KernelTiming(source, note, captured, all.size(), perIteration,
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

    /** Releases everything; a cleanup error is thrown unless the run already failed (then it is attached). */
    private static void cleanup(Workload workload, HarnessContext context, EventPairSampler sampler,
                                List<GpuEvent> events, List<GpuStream> streams, GpuStream timing, Throwable failure) {
        List<Runnable> steps = new ArrayList<>();
        steps.add(workload::cleanup);
        if (context != null) {
            steps.add(context::close);
        }
        if (sampler != null) {
            steps.add(sampler::close);
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
