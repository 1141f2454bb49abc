package dev.aorta.workloads.launchoverhead;

import java.util.ArrayList;
import java.util.List;

/**
 * The seed's summary after the rank lines: per pattern, ms/step over the ranks (mean, min, max) and the
 * launches, syncs and collectives per step averaged over the ranks.
 */
public final class LaunchOverheadSummary {
    /** A pattern over all ranks; skipped when rank 0 skipped it. */
    public record Row(Pattern pattern, String skipReason, int ranks, double meanMsPerStep, double minMsPerStep,
                      double maxMsPerStep, double launchesPerStep, double syncsPerStep, double collectivesPerStep) {
    }

    private LaunchOverheadSummary() {
    }

    public static List<Row> of(LaunchOverheadResult result) {
        List<Row> rows = new ArrayList<>();
        List<PatternResult> first = result.ranks().getFirst().patterns();
        for (int i = 0; i < first.size(); i++) {
            PatternResult p0 = first.get(i);
            if (p0.wasSkipped()) {
                rows.add(new Row(p0.pattern(), p0.skipReason(), 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                        Double.NaN));
                continue;
            }
            double sum = 0;
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            double launches = 0;
            double syncs = 0;
            double collectives = 0;
            for (LaunchOverheadResult.RankResult rank : result.ranks()) {
                PatternResult p = rank.patterns().get(i);
                sum += p.msPerStep();
                min = Math.min(min, p.msPerStep());
                max = Math.max(max, p.msPerStep());
                launches += p.launchesPerStep();
                syncs += p.syncsPerStep();
                collectives += p.collectivesPerStep();
            }
            int n = result.ranks().size();
            rows.add(new Row(p0.pattern(), null, n, sum / n, min, max, launches / n, syncs / n,
                    collectives / n));
        }
        return rows;
    }
}
