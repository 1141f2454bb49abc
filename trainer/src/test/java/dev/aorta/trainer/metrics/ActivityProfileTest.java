package dev.aorta.trainer.metrics;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.trainer.schedule.StreamRole;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ActivityProfileTest {
    private static final long COMPUTE = 0x1000;
    private static final long AUX = 0x2000;
    private static final long LIBRARY = 0x3000;

    private static DeviceActivity a(ActivityKind kind, String name, long stream, long start, long end) {
        return new DeviceActivity(kind, name, 0, 0, stream, start, end, 0, DeviceActivity.UNKNOWN,
                DeviceActivity.UNKNOWN, null, null, 0, ClockDomain.CUPTI);
    }

    @Test
    void theStepIsTheWindowBetweenItsMarkersAndEachOtherRecordOnAKnownStreamIsARange() {
        List<DeviceActivity> records = List.of(
                a(ActivityKind.KERNEL, "gemm", COMPUTE, 10_300_000, 10_900_000),
                a(ActivityKind.MEMSET, "memset", COMPUTE, 10_000_000, 10_001_000),     // start marker
                a(ActivityKind.MEMCPY, "Memcpy HtoD", AUX, 10_002_000, 10_500_000),
                a(ActivityKind.KERNEL, "internal", LIBRARY, 10_400_000, 10_450_000),
                a(ActivityKind.MEMSET, "memset", COMPUTE, 11_000_000, 11_001_000));    // end marker
        ActivityProfile.Built b = ActivityProfile.of(3, records, Map.of(COMPUTE, StreamRole.COMPUTE,
                AUX, StreamRole.AUX));
        StepProfile p = b.profile();
        assertThat(p.index()).isEqualTo(3);
        assertThat(p.totalNs()).isEqualTo(1_001_000);
        assertThat(p.ranges()).extracting(DeviceRange::tag).containsExactly("Memcpy HtoD", "gemm");
        assertThat(p.ranges().getFirst().startNs()).isEqualTo(2_000);
        assertThat(p.ranges().getFirst().stream()).isEqualTo(StreamRole.AUX);
        assertThat(b.unmappedRecords()).isEqualTo(1);
        assertThat(p.markers()).extracting(DeviceMarker::tag).containsExactly("step_start", "step_end");
        // the overlap block follows: compute 0.6 ms, aux 0.498 ms, of which 0.2 ms at once
        StepOverlap o = p.overlap();
        assertThat(o.perStreamMs().get(StreamRole.COMPUTE)).isCloseTo(0.6, within(1e-9));
        assertThat(o.perStreamMs().get(StreamRole.AUX)).isCloseTo(0.498, within(1e-9));
    }

    @Test
    void ncclKernelsAreCollectivesOnWhicheverStreamTheyRan() {
        List<DeviceActivity> records = List.of(
                a(ActivityKind.MEMSET, "memset", COMPUTE, 0, 1_000),
                a(ActivityKind.KERNEL, "ncclDevKernel_AllGather_RING_LL", AUX, 2_000, 9_000),
                a(ActivityKind.KERNEL, "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL", COMPUTE, 10_000, 12_000),
                a(ActivityKind.KERNEL, "gemm", COMPUTE, 3_000, 8_000),
                a(ActivityKind.MEMSET, "memset", COMPUTE, 20_000, 21_000));
        StepProfile p = ActivityProfile.of(0, records, Map.of(COMPUTE, StreamRole.COMPUTE, AUX, StreamRole.AUX))
                .profile();
        assertThat(p.ranges()).filteredOn(DeviceRange::collective).extracting(DeviceRange::tag)
                .containsExactly("ncclDevKernel_AllGather_RING_LL", "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL");
        // the gemm runs under the gather: 5 µs of compute overlapped by communication
        assertThat(p.overlap().computeCommMs()).isCloseTo(0.005, within(1e-9));
    }
}
