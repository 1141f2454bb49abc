package dev.aorta.workloads.launchoverhead;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FixedDurationLoopTest {
    private long nowNs;

    @Test
    void stepsRunUntilTheTimeIsUpAndCountersGrowOnlyOverTheMeasuredSteps() {
        LaunchCounters counters = new LaunchCounters();
        counters.launched();  // before measuring: not counted
        Runnable step = () -> {
            nowNs += 10_000_000;
            counters.launched();
            counters.launched();
            counters.synced();
        };
        FixedDurationLoop.Measurement m = FixedDurationLoop.run(step, List.of(counters), 0.1, () -> nowNs);
        assertThat(m.steps()).isEqualTo(10);
        assertThat(m.stepMs()).containsOnly(10.0);
        assertThat(m.elapsedSeconds()).isEqualTo(0.1);
        assertThat(m.launches()).isEqualTo(20);
        assertThat(m.syncs()).isEqualTo(10);
    }

    @Test
    void aStepLongerThanTheTimeStillRunsOnce() {
        FixedDurationLoop.Measurement m = FixedDurationLoop.run(() -> nowNs += 5_000_000_000L, List.of(new LaunchCounters()),
                1, () -> nowNs);
        assertThat(m.steps()).isEqualTo(1);
        assertThat(m.stepMs()).containsExactly(5000.0);
    }

    @Test
    void patternResultsAreMsPerStepOverTheElapsedTime() {
        FixedDurationLoop.Measurement m = new FixedDurationLoop.Measurement(new double[] {3, 1, 2, 10}, 0.02, 40, 8, 12);
        PatternResult r = PatternResult.measured(Pattern.ARGMIN, m, null);
        assertThat(r.msPerStep()).isEqualTo(5.0);
        assertThat(r.medianStepMs()).isEqualTo(2.5);
        assertThat(r.minStepMs()).isEqualTo(1);
        assertThat(r.maxStepMs()).isEqualTo(10);
        assertThat(r.launchesPerStep()).isEqualTo(10);
        assertThat(r.syncsPerStep()).isEqualTo(2);
        assertThat(r.collectivesPerStep()).isEqualTo(3);
    }

    @Test
    void aStepCountAgreedByTheRanksRunsExactlyThatManyStepsWhateverTheTime() {
        LaunchCounters device = new LaunchCounters();
        LaunchCounters collectives = new LaunchCounters();
        Runnable step = () -> {
            nowNs += 7_000_000_000L;
            device.launched();
            collectives.collectiveIssued();
            collectives.collectiveIssued();
            collectives.synced();
        };
        FixedDurationLoop.Measurement m = FixedDurationLoop.runSteps(step, List.of(device, collectives), 3, () -> nowNs);
        assertThat(m.steps()).isEqualTo(3);
        assertThat(m.elapsedSeconds()).isEqualTo(21.0);
        assertThat(m.launches()).isEqualTo(3);
        assertThat(m.syncs()).isEqualTo(3);
        assertThat(m.collectives()).isEqualTo(6);
    }
}
