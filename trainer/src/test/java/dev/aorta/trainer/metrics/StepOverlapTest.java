package dev.aorta.trainer.metrics;

import dev.aorta.trainer.metrics.StepOverlap.Segment;
import dev.aorta.trainer.schedule.StreamRole;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.aorta.trainer.schedule.StreamRole.ALLREDUCE;
import static dev.aorta.trainer.schedule.StreamRole.AUX;
import static dev.aorta.trainer.schedule.StreamRole.COMPUTE;
import static dev.aorta.trainer.schedule.StreamRole.REDUCESCATTER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class StepOverlapTest {
    private static final long MS = 1_000_000;

    static DeviceRange kernel(StreamRole s, long fromMs, long toMs) {
        return new DeviceRange(s, "k", fromMs * MS, toMs * MS, false, Map.of());
    }

    static DeviceRange collective(StreamRole s, long fromMs, long toMs) {
        return new DeviceRange(s, "c", fromMs * MS, toMs * MS, true, Map.of());
    }

    @Test
    void perStreamOverlapIdleAndSegmentsOfAStep() {
        // compute [0,10) [12,20); reduce-scatter [5,15); all-reduce [8,9); an all-gather on aux [18,25); total 30
        StepOverlap o = StepOverlap.of(List.of(kernel(COMPUTE, 0, 10), kernel(COMPUTE, 12, 20),
                collective(REDUCESCATTER, 5, 15), collective(ALLREDUCE, 8, 9), collective(AUX, 18, 25)), 30 * MS);
        assertThat(o.perStreamMs()).containsExactlyInAnyOrderEntriesOf(Map.of(COMPUTE, 18.0, REDUCESCATTER, 10.0,
                ALLREDUCE, 1.0, AUX, 7.0));
        assertThat(o.computeReducescatterMs()).isEqualTo(8.0); // [5,10) and [12,15)
        assertThat(o.computeAllreduceMs()).isEqualTo(1.0);
        assertThat(o.computeCommMs()).isEqualTo(10.0); // [5,10) [12,15) [18,20): the gather counts as comm
        assertThat(o.idleMs()).isEqualTo(5.0); // [25,30)
        assertThat(o.utilization().get(COMPUTE)).isCloseTo(18.0 / 30, within(1e-12));
        assertThat(o.activeSegments()).containsExactly(
                new Segment(0, 5, List.of(COMPUTE)),
                new Segment(5, 8, List.of(COMPUTE, REDUCESCATTER)),
                new Segment(8, 9, List.of(COMPUTE, ALLREDUCE, REDUCESCATTER)),
                new Segment(9, 10, List.of(COMPUTE, REDUCESCATTER)),
                new Segment(10, 12, List.of(REDUCESCATTER)),
                new Segment(12, 15, List.of(COMPUTE, REDUCESCATTER)),
                new Segment(15, 18, List.of(COMPUTE)),
                new Segment(18, 20, List.of(COMPUTE, AUX)),
                new Segment(20, 25, List.of(AUX)));
    }

    @Test
    void aStreamStaysActiveUntilItsLastOpenRangeEnds() {
        // the seed's sweep drops compute at 4 (the inner range's end) and reports no overlap
        StepOverlap o = StepOverlap.of(List.of(kernel(COMPUTE, 0, 10), kernel(COMPUTE, 2, 4),
                collective(REDUCESCATTER, 5, 8)), 10 * MS);
        assertThat(o.computeCommMs()).isEqualTo(3.0);
        assertThat(o.perStreamMs().get(COMPUTE)).isEqualTo(10.0);
    }

    @Test
    void collectivesOnTheComputeStreamAreNotCompute() {
        // collective_streams: compute — the stream is busy for 8 ms, but nothing overlaps
        StepOverlap o = StepOverlap.of(List.of(kernel(COMPUTE, 0, 5), collective(COMPUTE, 5, 8)), 8 * MS);
        assertThat(o.perStreamMs().get(COMPUTE)).isEqualTo(8.0);
        assertThat(o.computeCommMs()).isZero();
        assertThat(o.idleMs()).isZero();
    }

    @Test
    void rangesAreClippedToTheStepAndAnEmptyStepIsIdle() {
        StepOverlap o = StepOverlap.of(List.of(kernel(COMPUTE, 4, 12)), 10 * MS);
        assertThat(o.perStreamMs().get(COMPUTE)).isEqualTo(6.0);
        assertThat(o.idleMs()).isEqualTo(4.0);
        StepOverlap empty = StepOverlap.of(List.of(), 10 * MS);
        assertThat(empty.idleMs()).isEqualTo(10.0);
        assertThat(empty.activeSegments()).isEmpty();
        assertThat(empty.utilization()).containsOnlyKeys(COMPUTE, ALLREDUCE, REDUCESCATTER, AUX);
    }
}
