package dev.aorta.gpu.cupti;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CoreRecordsTest {
    private final List<DeviceActivity> activities = new ArrayList<>();
    private final List<ApiCall> calls = new ArrayList<>();
    private final CoreRecords records = new CoreRecords(activities::add, calls::add, 3);

    @Test
    void aKernelBecomesADeviceActivityOfTheRankOnCuptisClock() {
        records.kernel("gemm", 1, 0x7f00L, 100, 250, 42, 90, 95, 8, 4, 2, 256, 1, 1);
        assertThat(activities).containsExactly(new DeviceActivity(ActivityKind.KERNEL, "gemm", 3, 1, 0x7f00L, 100, 250,
                42, 90, 95, new Dim3(8, 4, 2), new Dim3(256, 1, 1), 0, ClockDomain.CUPTI));
    }

    @Test
    void copiesAndMemsetsKeepTheirBytesAndHaveNoShapeOrLatencyTimestamps() {
        records.memcpy("Memcpy HtoD", 0, 5, 10, 20, 7, 4096);
        records.memset("Memset", 0, 5, 30, 40, 8, 512);
        assertThat(activities).containsExactly(
                new DeviceActivity(ActivityKind.MEMCPY, "Memcpy HtoD", 3, 0, 5, 10, 20, 7, DeviceActivity.UNKNOWN,
                        DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 4096, ClockDomain.CUPTI),
                new DeviceActivity(ActivityKind.MEMSET, "Memset", 3, 0, 5, 30, 40, 8, DeviceActivity.UNKNOWN,
                        DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 512, ClockDomain.CUPTI));
    }

    @Test
    void aDriverCallBecomesAnApiCallOnCuptisClock() {
        records.driverCall("cuLaunchKernel", 1234, 50, 60, 42, 0);
        assertThat(calls).containsExactly(new ApiCall("cuLaunchKernel", 1234, 0, 50, 60, 42, 0, Map.of(),
                ClockDomain.CUPTI));
    }
}
