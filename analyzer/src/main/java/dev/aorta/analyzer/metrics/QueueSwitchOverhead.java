package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.classify.ActivityClass;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Queue switch overhead, AORTA's definition kept for comparability (docs/metrics.md#queue-switch-overhead): the window's kernels sorted by end; for
 * each consecutive pair, gap = next.start − prev.end when positive; a gap between kernels of the same stream is
 * intra-stream, otherwise inter-stream; {@code estimated_switch_overhead = max(0, mean(inter) − mean(intra))}.
 * Computed from real device timestamps (AORTA's is always 0 because it never records per-kernel times).
 */
public record QueueSwitchOverhead(long intraGaps, double meanIntraGapNs, long interGaps, double meanInterGapNs,
                                  double estimatedSwitchOverheadNs) {

    public static QueueSwitchOverhead of(RankTimeline t, ClassIntervals unions, Window w) {
        List<DeviceActivity> kernels = new ArrayList<>();
        List<DeviceActivity> acts = t.activities();
        for (int i = WindowActivities.first(t, unions, w); i < acts.size() && acts.get(i).startNs() < w.endNs(); i++) {
            DeviceActivity a = acts.get(i);
            if (WindowActivities.startsIn(a, w) && a.kind() != ActivityKind.MEMCPY && a.kind() != ActivityKind.MEMSET
                    && t.classOf(i) != ActivityClass.OTHER) {
                kernels.add(a);
            }
        }
        kernels.sort(Comparator.comparingLong(DeviceActivity::endNs));
        long intraN = 0;
        long interN = 0;
        double intraSum = 0;
        double interSum = 0;
        for (int i = 1; i < kernels.size(); i++) {
            DeviceActivity prev = kernels.get(i - 1);
            DeviceActivity next = kernels.get(i);
            long gap = next.startNs() - prev.endNs();
            if (gap <= 0) {
                continue;
            }
            if (prev.stream() == next.stream()) {
                intraN++;
                intraSum += gap;
            } else {
                interN++;
                interSum += gap;
            }
        }
        double intra = intraN == 0 ? 0 : intraSum / intraN;
        double inter = interN == 0 ? 0 : interSum / interN;
        return new QueueSwitchOverhead(intraN, intra, interN, inter, Math.max(0, inter - intra));
    }
}
