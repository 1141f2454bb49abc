package dev.aorta.core.metric;

import java.util.List;

/**
 * AORTA's trainer report, {@code overlap_report.py} (docs/metrics.md#trainer-run-summary), over the per-step lines
 * of a directory of {@code rank_*_metrics.jsonl}: every line of every rank counts, step 0 included (AORTA skips no
 * warm-up here). From each line it takes the recorded {@code profile.overlap} block, not device activity:
 * <pre>
 * count                          = lines
 * mean_loss                      = Σ loss / count
 * mean_overlap_ms                = Σ overlap_ms.compute_comm / count
 * mean_compute_ms                = Σ per_stream_ms.compute / count
 * mean_allreduce_overlap_ms      = Σ overlap_ms.compute_allreduce / count      (an overlap, despite its name)
 * mean_reducescatter_overlap_ms  = Σ overlap_ms.compute_reducescatter / count  (likewise)
 * overlap_ratio                  = mean_overlap_ms / mean_compute_ms = Σ compute_comm / Σ compute; 0 when compute is 0
 * </pre>
 * A missing overlap field counts as 0, as AORTA reads it. overlap_ratio is a ratio of sums: long steps weigh more.
 * The mean of the per-step ratios (what {@code aorta report}'s {@code aorta_overlap_ratio.mean} is) weighs every
 * step alike and differs whenever the steps' compute differs; on one H100 run of AORTA's trainer (40 steps) the
 * first gave 0.0114 and the second 0.0188. Where AORTA's script would fail, on a line without a loss (the agent's
 * lines), {@code mean_loss} is the mean over the lines that have one, and undefined (NaN) when none has.
 */
public record TrainerRunSummary(int count, double meanLoss, double meanOverlapMs, double meanComputeMs,
                                double meanAllreduceOverlapMs, double meanReducescatterOverlapMs, double overlapRatio) {

    /** One line's fields as AORTA reads them; {@code loss} is NaN where the line has none. */
    public record Step(double loss, double computeCommMs, double computeMs, double computeAllreduceMs,
                       double computeReducescatterMs) {
    }

    /** The summary of all the steps of one run (all ranks together); an empty run has count 0 and NaN means. */
    public static TrainerRunSummary of(List<Step> steps) {
        int n = steps.size();
        if (n == 0) {
            return new TrainerRunSummary(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        double loss = 0;
        int losses = 0;
        double overlap = 0;
        double compute = 0;
        double allreduce = 0;
        double reducescatter = 0;
        for (Step s : steps) {
            if (!Double.isNaN(s.loss())) {
                loss += s.loss();
                losses++;
            }
            overlap += s.computeCommMs();
            compute += s.computeMs();
            allreduce += s.computeAllreduceMs();
            reducescatter += s.computeReducescatterMs();
        }
        double meanCompute = compute / n;
        double meanOverlap = overlap / n;
        return new TrainerRunSummary(n, losses == 0 ? Double.NaN : loss / losses, meanOverlap, meanCompute,
                allreduce / n, reducescatter / n, meanCompute > 0 ? meanOverlap / meanCompute : 0.0);
    }

    /**
     * AORTA's {@code comparison} block: the two overlap ratios and {@code ratio_delta} = candidate − reference. An
     * empty run's ratio is 0 there, as in AORTA.
     */
    public record Comparison(double referenceOverlapRatio, double candidateOverlapRatio, double ratioDelta) {

        public static Comparison of(TrainerRunSummary reference, TrainerRunSummary candidate) {
            double ref = reference.count() == 0 ? 0.0 : reference.overlapRatio();
            double cand = candidate.count() == 0 ? 0.0 : candidate.overlapRatio();
            return new Comparison(ref, cand, cand - ref);
        }
    }
}
