package dev.aorta.trainer.run;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StepRecordSplitterTest {
    private static final long COMPUTE = 7;
    private static final long AUX = 9;

    private static DeviceActivity a(ActivityKind kind, long stream, long bytes, long start, long end) {
        return new DeviceActivity(kind, kind.name(), 0, 0, stream, start, end, 0, DeviceActivity.UNKNOWN,
                DeviceActivity.UNKNOWN, null, null, bytes, ClockDomain.CUPTI);
    }

    /** Step s from 1000·s: start marker, an H2D copy on aux, a kernel and a 4-byte memset on compute, end marker. */
    private static List<DeviceActivity> step(int s) {
        long t = 1000L * s;
        return List.of(a(ActivityKind.MEMSET, COMPUTE, StepRecordSplitter.START_MARKER_BYTES, t, t + 2),
                a(ActivityKind.MEMCPY, AUX, 4096, t + 5, t + 50),
                a(ActivityKind.KERNEL, COMPUTE, 0, t + 60, t + 700),
                a(ActivityKind.MEMSET, COMPUTE, 4, t + 710, t + 712),
                a(ActivityKind.MEMSET, COMPUTE, StepRecordSplitter.END_MARKER_BYTES, t + 720, t + 722));
    }

    @Test
    void recordsAreCollectedEveryFewStepsAndEachStepGetsItsOwn() {
        Queue<DeviceActivity> cupti = new ConcurrentLinkedQueue<>();
        int[] flushes = {0};
        StepRecordSplitter splitter = new StepRecordSplitter(() -> flushes[0]++, cupti, COMPUTE, 4);
        List<List<DeviceActivity>> got = new ArrayList<>();
        for (int s = 0; s < 10; s++) {
            List<DeviceActivity> r = new ArrayList<>(step(s));
            Collections.shuffle(r, new java.util.Random(s)); // CUPTI's buffer order is not time order
            cupti.addAll(r);
            List<List<DeviceActivity>> ended = splitter.stepEnded();
            assertThat(ended).hasSize(s == 3 || s == 7 ? 4 : 0);
            got.addAll(ended);
        }
        got.addAll(splitter.flushPending()); // the run's end: steps 8 and 9

        assertThat(flushes[0]).isEqualTo(3);
        assertThat(got).hasSize(10);
        for (int s = 0; s < 10; s++) {
            assertThat(got.get(s)).containsExactlyElementsOf(step(s));
        }
    }

    @Test
    void aStepWithoutItsEndMarkerGetsNoRecordsRatherThanItsNeighbours() {
        Queue<DeviceActivity> cupti = new ConcurrentLinkedQueue<>();
        StepRecordSplitter splitter = new StepRecordSplitter(() -> { }, cupti, COMPUTE, 1);
        cupti.addAll(step(0).subList(0, 4));

        assertThat(splitter.stepEnded()).containsExactly(List.of());
        assertThat(splitter.flushPending()).isEmpty(); // nothing ended since
    }

    @Test
    void flushingEveryZeroStepsIsRefused() {
        assertThatThrownBy(() -> new StepRecordSplitter(() -> { }, new ConcurrentLinkedQueue<>(), COMPUTE, 0))
                .hasMessageContaining("at least 1");
    }
}
