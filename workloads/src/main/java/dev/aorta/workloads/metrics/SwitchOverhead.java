package dev.aorta.workloads.metrics;

import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * AORTA's queue switch overhead (docs/metrics.md#queue-switch-overhead), kept for comparability but fed with real device
 * timestamps: per window, kernels sorted by end; for consecutive pairs the gap next.start − prev.end
 * counts when positive, as intra-stream when both ran on one stream and inter-stream otherwise;
 * {@code estimated = max(0, mean(inter) − mean(intra))}.
 */
public record SwitchOverhead(GapStats inter, GapStats intra, double estimatedOverheadUs) {

    /** Positive gaps of one kind in µs; mean 0 when there are none. */
    public record GapStats(int count, double meanUs, double p50Us, double maxUs) {
        static GapStats of(List<Double> gapsUs) {
            if (gapsUs.isEmpty()) {
                return new GapStats(0, 0, 0, 0);
            }
            double[] v = gapsUs.stream().mapToDouble(Double::doubleValue).toArray();
            SampleStats s = SampleStats.of(v);
            return new GapStats(v.length, s.mean(), s.p50(), s.max());
        }
    }

    public static SwitchOverhead of(List<List<DeviceActivity>> windows) {
        List<Double> inter = new ArrayList<>();
        List<Double> intra = new ArrayList<>();
        for (List<DeviceActivity> window : windows) {
            List<DeviceActivity> byEnd = new ArrayList<>(window);
            byEnd.sort(Comparator.comparingLong(DeviceActivity::endNs));
            for (int i = 1; i < byEnd.size(); i++) {
                DeviceActivity prev = byEnd.get(i - 1);
                DeviceActivity next = byEnd.get(i);
                long gap = next.startNs() - prev.endNs();
                if (gap > 0) {
                    (prev.stream() == next.stream() ? intra : inter).add(gap / 1e3);
                }
            }
        }
        GapStats interStats = GapStats.of(inter);
        GapStats intraStats = GapStats.of(intra);
        return new SwitchOverhead(interStats, intraStats, Math.max(0, interStats.meanUs() - intraStats.meanUs()));
    }
}
