package dev.aorta.workloads.harness;

import dev.aorta.core.event.DeviceActivity;
import dev.aorta.gpu.cuda.DeviceInfo;
import dev.aorta.gpu.cuda.MemoryStats;
import dev.aorta.workloads.metrics.ConvoyEffect;
import dev.aorta.core.metric.DispatchLatency;
import dev.aorta.core.metric.KernelBreakdown;
import dev.aorta.core.metric.QueueSwitchOverhead;
import dev.aorta.core.metric.SampleStats;
import dev.aorta.workloads.session.GpuTelemetry;
import dev.aorta.workloads.spi.Throughput;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Everything one run measured. Times from device events or device timestamps unless named host.
 *
 * @param latencyMs        per-iteration device latency; null in sync mode none (not defined there)
 * @param iterationTimesMs per-iteration device times; empty in sync mode none
 * @param totalTimeMs      device time from the start of the first measured iteration to the end of the last
 * @param wallTimeMs       host time of the measured loop including the final wait
 * @param convoy           null unless the workload declares convoy roles
 * @param activities       the device activity behind the kernel metrics (for traces; not written to JSON)
 * @param baselineLoop     null unless asked for and the workload has one
 * @param telemetry        the GPU's state (NVML) before setup and after the measured iterations
 * @param workloadResults  the workload's own figures ({@link dev.aorta.workloads.spi.Workload#results}); empty if none
 */
public record RunResult(String workloadName, Instant timestamp, HarnessOptions options, String workloadDescription,
                        DeviceInfo device, Map<String, String> envVars, Map<String, Object> workloadConfig,
                        Throughput throughput, SampleStats latencyMs, double[] iterationTimesMs, double totalTimeMs,
                        double wallTimeMs, HostEnqueue hostEnqueue, List<StreamStats> streams,
                        KernelTiming kernelTiming, MemoryReport memory, Correctness correctness,
                        List<List<DeviceActivity>> activities, BaselineLoop baselineLoop, Telemetry telemetry,
                        Map<String, Object> workloadResults) {

    /**
     * The streams that did no device work in the traced iterations, where every launch of them was timed (so that
     * none means idle, not unseen): a workload that leaves a stream it claims idle at this count is worth saying.
     */
    public List<StreamStats> idleStreams() {
        if (kernelTiming == null || kernelTiming.untimedLaunches() > 0 || kernelTiming.activityCount() == 0) {
            return List.of();
        }
        return streams.stream().filter(s -> s.kernelCount() == 0).toList();
    }

    /** "streams 14, 15 (reduce)": the idle streams by index and role, for one line of text. */
    public static String describe(List<StreamStats> streams) {
        Map<String, List<Integer>> byRole = new LinkedHashMap<>();
        streams.forEach(s -> byRole.computeIfAbsent(s.role(), r -> new ArrayList<>()).add(s.index()));
        List<String> parts = new ArrayList<>();
        byRole.forEach((role, indices) -> parts.add(indices.stream().map(String::valueOf)
                .collect(Collectors.joining(", ")) + " (" + role + ")"));
        return (streams.size() == 1 ? "stream " : "streams ") + String.join(", ", parts);
    }

    /** NVML readings around the run: a throttled, hot or power-capped GPU shows here next to its numbers. */
    public record Telemetry(GpuTelemetry before, GpuTelemetry after) {
    }

    /**
     * Host time spent enqueuing (calling into the driver), per iteration.
     *
     * @param launchesPerIteration mean API calls that enqueued device work per iteration, as the session counted them
     *                             ({@link dev.aorta.workloads.session.GpuSession#enqueuedWork()})
     * @param minLaunches          fewest of one iteration (equal to the most unless iterations enqueue different work)
     * @param usPerLaunch          mean host µs per launch
     */
    public record HostEnqueue(SampleStats perIterationMs, double launchesPerIteration, long minLaunches,
                              long maxLaunches, double usPerLaunch, double iterationsPerSecond,
                              double launchesPerSecond) {

        /** Whether the iterations enqueued different numbers of calls (then the count is their mean). */
        public boolean launchCountVaried() {
            return minLaunches != maxLaunches;
        }
    }

    /**
     * One workload stream.
     *
     * @param kernelCount  device activities (kernels, copies, memsets) captured on it
     * @param busyMs       |union of its activities' device intervals| summed over the traced iterations (not the
     *                     measured ones: see {@link KernelTiming#capturedIterations()})
     * @param kernelTimeMs sum of its activities' durations (equals busyMs unless work of one stream overlapped)
     */
    public record StreamStats(int index, int priority, String role, long activityStreamId, int kernelCount,
                              double busyMs, double kernelTimeMs) {
    }

    /**
     * The per-kernel metrics and where their timestamps came from.
     *
     * @param capturedIterations traced iterations the kernel records cover: run after the measured (untraced) ones
     * @param untimedLaunches    launch calls of the traced iterations that no activity times: with event pairs, those
     *                           that bypass the harness's ops (the model workloads' layers); 0 under CUPTI. Per-stream
     *                           times that read 0 with untimed launches were not measured, not idle
     * @param perIterationWindows whether gaps were computed per iteration (else over the whole run)
     * @param switchOverhead      of the kernels, in ns
     * @param dispatchLatency     of the kernels, in ns, from their CUPTI {@code queued} timestamps
     * @param kernelClasses       every activity grouped by name, in ns
     */
    public record KernelTiming(TimingSource source, String sourceNote, int capturedIterations, int activityCount,
                               long untimedLaunches, boolean perIterationWindows, QueueSwitchOverhead switchOverhead,
                               DispatchLatency dispatchLatency, ConvoyEffect convoy,
                               List<KernelBreakdown.Entry> kernelClasses) {
        /** Why dispatch latency is missing when {@link DispatchLatency#measured()} is false. */
        public static final String DISPATCH_NEEDS_QUEUED = "the device activity has no 'queued' timestamps "
                + "(CUPTI latency timestamps are needed; sampled event pairs cannot tell queueing from running)";
    }

    /** Device memory at the end of the run and its peaks, by the runtime's accounting. */
    public record MemoryReport(MemoryStats atEnd) {
    }

    /** Result of the workload's optional check; {@code checked} false when it has none. */
    public record Correctness(boolean checked, String problem) {
    }

    /**
     * The same work as a plain loop on one stream, measured in the same run.
     *
     * @param ratio harness throughput / plain-loop throughput
     */
    public record BaselineLoop(int iterations, double totalTimeMs, Throughput throughput, double ratio) {
    }
}
