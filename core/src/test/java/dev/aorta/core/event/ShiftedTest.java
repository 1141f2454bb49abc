package dev.aorta.core.event;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ShiftedTest {

    @Test
    void anActivityMovesEveryTimestampItHasAndKeepsUnknownOnesUnknown() {
        DeviceActivity a = new DeviceActivity(ActivityKind.KERNEL, "k", 0, 1, 7, 100, 200, 9, 90,
                DeviceActivity.UNKNOWN, new Dim3(1, 1, 1), new Dim3(32, 1, 1), 0, ClockDomain.CUPTI);

        DeviceActivity moved = a.shifted(1_000, 3, ClockDomain.HOST_MONOTONIC);

        assertThat(moved).isEqualTo(new DeviceActivity(ActivityKind.KERNEL, "k", 3, 1, 7, 1_100, 1_200, 9, 1_090,
                DeviceActivity.UNKNOWN, new Dim3(1, 1, 1), new Dim3(32, 1, 1), 0, ClockDomain.HOST_MONOTONIC));
        assertThat(a.shifted(0, 0, ClockDomain.CUPTI)).isSameAs(a);
    }

    @Test
    void callsRangesAndDependenciesMoveBothEnds() {
        ApiCall c = new ApiCall("cuLaunchKernel", 1, 2, 10, 20, 3, 0, Map.of("grid_x", 1L), ClockDomain.CUPTI);
        assertThat(c.shifted(5, ClockDomain.HOST_MONOTONIC)).isEqualTo(
                new ApiCall("cuLaunchKernel", 1, 2, 15, 25, 3, 0, Map.of("grid_x", 1L), ClockDomain.HOST_MONOTONIC));
        assertThat(new Marker(Marker.Kind.ITERATION, "step", 0, 4, 10, 20, ClockDomain.CUPTI)
                .shifted(-5, 1, ClockDomain.HOST_MONOTONIC))
                .isEqualTo(new Marker(Marker.Kind.ITERATION, "step", 1, 4, 5, 15, ClockDomain.HOST_MONOTONIC));
        assertThat(new Dependency(8, 1, 10, 2, 30, ClockDomain.CUPTI).shifted(5, ClockDomain.CUPTI))
                .isEqualTo(new Dependency(8, 1, 15, 2, 35, ClockDomain.CUPTI));
    }
}
