package dev.aorta.core.metric;

/**
 * Kernel launch statistics (docs/metrics.md#kernel-launch-statistics), HTA's "CUDA kernel launch statistics": for
 * each device activity paired with the host call that issued it (same correlation id):
 * <ul>
 *   <li><b>CPU duration</b> = call end − call start, <b>GPU duration</b> = activity end − start;</li>
 *   <li><b>launch delay</b> = activity start − call end (negative when the device started before the call returned,
 *       as it may for a launch onto an idle device);</li>
 *   <li><b>short kernels</b>: GPU duration &lt; CPU duration — the device finishes faster than the host issues,
 *       the case for fusing kernels or CUDA graphs;</li>
 *   <li><b>runtime outliers</b>: CPU duration &gt; the runtime cutoff (HTA's default 50 µs);
 *       <b>launch delay outliers</b>: launch delay &gt; the delay cutoff (HTA's default 100 µs).</li>
 * </ul>
 * Differs from launch latency (activity start − call <em>start</em>), which includes the call's own time. Values in ns.
 */
public record KernelLaunchStatistics(SampleStats cpuDurationNs, SampleStats gpuDurationNs, SampleStats launchDelayNs,
                                     int shortKernels, int runtimeOutliers, int launchDelayOutliers) {
    public static final long DEFAULT_RUNTIME_CUTOFF_NS = 50_000;
    public static final long DEFAULT_LAUNCH_DELAY_CUTOFF_NS = 100_000;

    public int launches() {
        return cpuDurationNs.count();
    }

    /** Adds activity–call pairs one at a time, so no list of pairs is built. */
    public static final class Builder {
        private final long runtimeCutoffNs;
        private final long launchDelayCutoffNs;
        private final SampleStats.Samples cpu = new SampleStats.Samples();
        private final SampleStats.Samples gpu = new SampleStats.Samples();
        private final SampleStats.Samples delay = new SampleStats.Samples();
        private int shortKernels;
        private int runtimeOutliers;
        private int delayOutliers;

        public Builder(long runtimeCutoffNs, long launchDelayCutoffNs) {
            this.runtimeCutoffNs = runtimeCutoffNs;
            this.launchDelayCutoffNs = launchDelayCutoffNs;
        }

        /** Adds a device activity and the call that launched it, by their times (callers hold them as columns). */
        public Builder add(long activityStartNs, long activityEndNs, long launchStartNs, long launchEndNs) {
            long cpuNs = launchEndNs - launchStartNs;
            long delayNs = activityStartNs - launchEndNs;
            long gpuNs = activityEndNs - activityStartNs;
            cpu.add(cpuNs);
            gpu.add(gpuNs);
            delay.add(delayNs);
            shortKernels += gpuNs < cpuNs ? 1 : 0;
            runtimeOutliers += cpuNs > runtimeCutoffNs ? 1 : 0;
            delayOutliers += delayNs > launchDelayCutoffNs ? 1 : 0;
            return this;
        }

        public KernelLaunchStatistics build() {
            return new KernelLaunchStatistics(cpu.stats(), gpu.stats(), delay.stats(), shortKernels, runtimeOutliers,
                    delayOutliers);
        }
    }
}
