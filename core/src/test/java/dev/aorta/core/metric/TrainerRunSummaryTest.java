package dev.aorta.core.metric;

import dev.aorta.core.metric.TrainerRunSummary.Step;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TrainerRunSummaryTest {
    // a long step (compute 10 ms, 1 ms of it beside communication) and a short one (compute 2 ms, 1 ms beside it)
    private static final Step LONG = new Step(0.5, 1.0, 10.0, 0.6, 0.4);
    private static final Step SHORT = new Step(0.7, 1.0, 2.0, 1.0, 0.0);

    @Test
    void meansEveryFieldOverAllStepsLikeAortasReport() {
        TrainerRunSummary s = TrainerRunSummary.of(List.of(LONG, SHORT));
        assertThat(s.count()).isEqualTo(2);
        assertThat(s.meanLoss()).isCloseTo(0.6, within(1e-12));
        assertThat(s.meanOverlapMs()).isCloseTo(1.0, within(1e-12));
        assertThat(s.meanComputeMs()).isCloseTo(6.0, within(1e-12));
        assertThat(s.meanAllreduceOverlapMs()).isCloseTo(0.8, within(1e-12));
        assertThat(s.meanReducescatterOverlapMs()).isCloseTo(0.2, within(1e-12));
    }

    @Test
    void overlapRatioIsARatioOfSumsNotAMeanOfPerStepRatios() {
        TrainerRunSummary s = TrainerRunSummary.of(List.of(LONG, SHORT));
        // Σ compute_comm / Σ compute = 2 / 12; the per-step ratios 0.1 and 0.5 would average to 0.3
        assertThat(s.overlapRatio()).isCloseTo(2.0 / 12.0, within(1e-12));
        double meanOfRatios = (1.0 / 10.0 + 1.0 / 2.0) / 2;
        assertThat(meanOfRatios).isCloseTo(0.3, within(1e-12));
        assertThat(s.overlapRatio()).isNotCloseTo(meanOfRatios, within(0.1));
    }

    @Test
    void overlapRatioIsZeroWithoutComputeAsInAorta() {
        TrainerRunSummary s = TrainerRunSummary.of(List.of(new Step(1.0, 0.0, 0.0, 0.0, 0.0)));
        assertThat(s.overlapRatio()).isZero();
    }

    @Test
    void meanLossLeavesOutLinesWithoutALossAndIsUndefinedWhenNoneHasOne() {
        Step noLoss = new Step(Double.NaN, 0.0, 4.0, 0.0, 0.0);
        TrainerRunSummary some = TrainerRunSummary.of(List.of(LONG, noLoss));
        assertThat(some.count()).isEqualTo(2);
        assertThat(some.meanLoss()).isEqualTo(0.5);
        assertThat(some.meanComputeMs()).isCloseTo(7.0, within(1e-12));
        assertThat(TrainerRunSummary.of(List.of(noLoss)).meanLoss()).isNaN();
    }

    @Test
    void comparisonIsCandidateMinusReferenceWithAnEmptyRunAtZero() {
        TrainerRunSummary ref = TrainerRunSummary.of(List.of(LONG));       // 0.1
        TrainerRunSummary cand = TrainerRunSummary.of(List.of(SHORT));     // 0.5
        TrainerRunSummary.Comparison c = TrainerRunSummary.Comparison.of(ref, cand);
        assertThat(c.referenceOverlapRatio()).isCloseTo(0.1, within(1e-12));
        assertThat(c.candidateOverlapRatio()).isCloseTo(0.5, within(1e-12));
        assertThat(c.ratioDelta()).isCloseTo(0.4, within(1e-12));
        TrainerRunSummary.Comparison empty = TrainerRunSummary.Comparison.of(TrainerRunSummary.of(List.of()), cand);
        assertThat(empty.referenceOverlapRatio()).isZero();
        assertThat(empty.ratioDelta()).isCloseTo(0.5, within(1e-12));
    }
}
