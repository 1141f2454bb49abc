package dev.aorta.agent.metrics;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The overlap metrics of docs/metrics.md on small hand-computed timelines (units: ns). */
class WindowMetricsTest {

    @Test
    void unionsMergeOverlapsAndAreClippedToTheWindow() {
        List<long[]> u = Intervals.union(List.of(new long[] {5, 15}, new long[] {0, 10}, new long[] {20, 30},
                new long[] {28, 40}), 2, 35);
        assertThat(u).containsExactly(new long[] {2, 15}, new long[] {20, 35});
        assertThat(Intervals.length(u)).isEqualTo(28);
    }

    @Test
    void overlapExposedCommAndIdleFollowTheDefinitions() {
        // window 0..100: compute 0..40 and 60..80, comm 30..70, memcpy 85..95 and 35..38 (hidden under compute)
        WindowMetrics m = WindowMetrics.of(0, 100,
                List.of(new long[] {0, 40}, new long[] {60, 80}),
                List.of(new long[] {30, 70}),
                List.of(new long[] {30, 70}),
                List.of(),
                List.of(new long[] {85, 95}, new long[] {35, 38}));
        assertThat(m.compute()).isEqualTo(60);
        assertThat(m.comm()).isEqualTo(40);
        assertThat(m.memcpy()).isEqualTo(13);
        assertThat(m.overlap()).isEqualTo(20);           // 30..40 and 60..70
        assertThat(m.computeAllReduce()).isEqualTo(20);
        assertThat(m.computeReduceScatter()).isZero();
        assertThat(m.exposedComm()).isEqualTo(20);       // 40..60
        assertThat(m.busy()).isEqualTo(90);              // 0..80 and 85..95
        assertThat(m.idle()).isEqualTo(10);
        assertThat(m.exposedMemcpy()).isEqualTo(10);     // 85..95 only
        assertThat(m.commOverlapPct()).isEqualTo(50.0);
        assertThat(m.aortaOverlapRatio()).isEqualTo(20.0 / 60);
    }

    @Test
    void ratiosAreUndefinedWithoutCommOrCompute() {
        WindowMetrics m = WindowMetrics.of(0, 10, List.of(), List.of(), List.of(), List.of(), List.of());
        assertThat(m.commOverlapPct()).isNull();
        assertThat(m.aortaOverlapRatio()).isNull();
        assertThat(m.idle()).isEqualTo(10);
    }
}
