package dev.aorta.core.metric;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.List;

/**
 * Queue switch overhead, AORTA's definition kept for comparability but fed with real device timestamps
 * (docs/metrics.md#queue-switch-overhead): per window, the kernels (KERNEL and COLLECTIVE records; copies, memsets and
 * OTHER records take no part: they run on copy engines or are no work) sorted by end; for each consecutive pair the gap
 * {@code next.start − prev.end} counts when positive, as intra-stream when both ran on one stream and inter-stream
 * otherwise; over all windows
 * <pre>estimated_switch_overhead = max(0, mean(inter) − mean(intra))</pre>
 * in ns. The estimate compares two samples and is undefined ({@code null}) unless both have at least one gap: with no
 * intra-stream gaps, "mean 0" would make the estimate the mean inter-stream gap, which on traces whose streams take
 * turns (a compute stream and an NCCL stream) is idle time, not a switch cost. The gap counts are part of the
 * metric so that every report can print them beside the estimate.
 *
 * @param intraGapsNs the positive gaps between consecutive kernels of one stream ({@link SampleStats#NONE} if none)
 * @param interGapsNs the positive gaps between consecutive kernels of different streams
 */
public record QueueSwitchOverhead(SampleStats intraGapsNs, SampleStats interGapsNs) {

    public int intraGaps() {
        return intraGapsNs.count();
    }

    public int interGaps() {
        return interGapsNs.count();
    }

    /** max(0, mean(inter) − mean(intra)) in ns; null unless there are gaps of both kinds. */
    public Double estimatedSwitchOverheadNs() {
        if (intraGaps() == 0 || interGaps() == 0) {
            return null;
        }
        return Math.max(0, interGapsNs.mean() - intraGapsNs.mean());
    }

    /** The metric of one window's activities. */
    public static QueueSwitchOverhead of(List<DeviceActivity> activities) {
        return new Builder().addWindow(activities).build();
    }

    /** Gaps gathered window by window: a gap never spans two windows. */
    public static final class Builder {
        private final SampleStats.Samples intra = new SampleStats.Samples();
        private final SampleStats.Samples inter = new SampleStats.Samples();

        /** Adds the gaps between the kernels among one window's activities (any order). */
        public Builder addWindow(List<DeviceActivity> activities) {
            List<DeviceActivity> byEnd = new ArrayList<>();
            for (DeviceActivity a : activities) {
                if (a.kind() == ActivityKind.KERNEL || a.kind() == ActivityKind.COLLECTIVE) {
                    byEnd.add(a);
                }
            }
            byEnd.sort((a, b) -> Long.compare(a.endNs(), b.endNs()));
            for (int i = 1; i < byEnd.size(); i++) {
                DeviceActivity prev = byEnd.get(i - 1);
                DeviceActivity next = byEnd.get(i);
                long gap = next.startNs() - prev.endNs();
                if (gap > 0) {
                    (prev.stream() == next.stream() ? intra : inter).add(gap);
                }
            }
            return this;
        }

        public QueueSwitchOverhead build() {
            return new QueueSwitchOverhead(intra.stats(), inter.stats());
        }
    }
}
