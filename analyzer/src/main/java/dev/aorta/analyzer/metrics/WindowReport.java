package dev.aorta.analyzer.metrics;

import dev.aorta.core.metric.DispatchLatency;
import dev.aorta.core.metric.OverlapMetrics;
import dev.aorta.core.metric.QueueSwitchOverhead;

import java.util.List;

/**
 * Everything measured for one rank and one window.
 *
 * @param jvm      null when the rank has no JFR pause records
 * @param breakdowns idle time per stream, API calls, kernel launches and copy bandwidth (HTA's and TraceLens's views)
 * @param analyses what the plugin {@link Analysis analyses} measured, in the order they were found
 */
public record WindowReport(int rank, Window window, String source, OverlapMetrics overlap,
                           List<LabelledStreamUtilization> streams, List<KernelBreakdown.Entry> kernels,
                           QueueSwitchOverhead queueSwitch, DispatchLatency dispatch, LaunchLatency launch,
                           QueueLength queueLength, JvmAttribution jvm, Breakdowns breakdowns,
                           List<AnalysisResult> analyses) {

    /** A rank's kernel breakdown over some window. */
    public record RankKernels(int rank, List<KernelBreakdown.Entry> kernels) {
    }
}
