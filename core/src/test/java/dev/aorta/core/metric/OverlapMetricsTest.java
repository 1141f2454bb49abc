package dev.aorta.core.metric;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The overlap metrics of docs/metrics.md on small hand-computed timelines (units: ns). */
class OverlapMetricsTest {

    private static IntervalSet set(long... startEndPairs) {
        int n = startEndPairs.length / 2;
        long[] s = new long[n];
        long[] e = new long[n];
        for (int i = 0; i < n; i++) {
            s[i] = startEndPairs[2 * i];
            e[i] = startEndPairs[2 * i + 1];
        }
        return IntervalSet.union(s, e, n);
    }

    @Test
    void unionsMergeOverlapsAndAreClippedToTheWindow() {
        IntervalSet u = set(5, 15, 0, 10, 20, 30, 28, 40).clip(2, 35);
        assertThat(u).hasToString("[[2,15), [20,35)]");
        assertThat(u.length()).isEqualTo(28);
    }

    @Test
    void overlapExposedCommAndIdleFollowTheDefinitions() {
        // window 0..100: compute 0..40 and 60..80, comm 30..70, memcpy 85..95 and 35..38 (hidden under compute)
        OverlapMetrics m = OverlapMetrics.of(0, 100, set(0, 40, 60, 80), set(30, 70), set(85, 95, 35, 38));
        assertThat(m.computeNs()).isEqualTo(60);
        assertThat(m.commNs()).isEqualTo(40);
        assertThat(m.memoryNs()).isEqualTo(13);
        assertThat(m.overlapNs()).isEqualTo(20);         // 30..40 and 60..70
        assertThat(m.exposedCommNs()).isEqualTo(20);     // 40..60
        assertThat(m.busyNs()).isEqualTo(90);            // 0..80 and 85..95
        assertThat(m.idleNs()).isEqualTo(10);
        assertThat(m.exposedMemcpyNs()).isEqualTo(10);   // 85..95 only
        assertThat(m.commOverlapPct()).isEqualTo(50.0);
        assertThat(m.aortaOverlapRatio()).isEqualTo(20.0 / 60);
    }

    @Test
    void activitiesOutsideTheWindowAreClippedAway() {
        OverlapMetrics m = OverlapMetrics.of(50, 100, set(0, 60), set(55, 200), IntervalSet.EMPTY);
        assertThat(m.windowNs()).isEqualTo(50);
        assertThat(m.computeNs()).isEqualTo(10);
        assertThat(m.commNs()).isEqualTo(45);
        assertThat(m.overlapNs()).isEqualTo(5);
    }

    @Test
    void ratiosAreUndefinedNotZeroWithoutCommOrCompute() {
        OverlapMetrics m = OverlapMetrics.of(0, 10, IntervalSet.EMPTY, IntervalSet.EMPTY, IntervalSet.EMPTY);
        assertThat(m.commOverlapPct()).isNull();
        assertThat(m.aortaOverlapRatio()).isNull();
        assertThat(m.idleNs()).isEqualTo(10);
        OverlapMetrics fullyExposed = OverlapMetrics.of(0, 10, IntervalSet.EMPTY, set(0, 5), IntervalSet.EMPTY);
        assertThat(fullyExposed.commOverlapPct()).isZero();
    }
}
