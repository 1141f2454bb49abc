package dev.aorta.gpu.cupti;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;

import java.util.Map;
import java.util.function.Consumer;

/** The tracer's records as {@code dev.aorta.core} events, for consumers that share the tracer's core. */
final class CoreRecords implements CuptiRecords {
    private final Consumer<DeviceActivity> activities;
    private final Consumer<ApiCall> apiCalls;
    private final int rank;

    CoreRecords(Consumer<DeviceActivity> activities, Consumer<ApiCall> apiCalls, int rank) {
        this.activities = activities;
        this.apiCalls = apiCalls;
        this.rank = rank;
    }

    @Override
    public void kernel(String name, int device, long stream, long startNs, long endNs, long correlationId,
                       long queuedNs, long submittedNs, int gridX, int gridY, int gridZ, int blockX, int blockY,
                       int blockZ) {
        activities.accept(new DeviceActivity(ActivityKind.KERNEL, name, rank, device, stream, startNs, endNs,
                correlationId, queuedNs, submittedNs, new Dim3(gridX, gridY, gridZ), new Dim3(blockX, blockY, blockZ),
                0, ClockDomain.CUPTI));
    }

    @Override
    public void memcpy(String name, int device, long stream, long startNs, long endNs, long correlationId, long bytes) {
        activities.accept(transfer(ActivityKind.MEMCPY, name, device, stream, startNs, endNs, correlationId, bytes));
    }

    @Override
    public void memset(String name, int device, long stream, long startNs, long endNs, long correlationId, long bytes) {
        activities.accept(transfer(ActivityKind.MEMSET, name, device, stream, startNs, endNs, correlationId, bytes));
    }

    private DeviceActivity transfer(ActivityKind kind, String name, int device, long stream, long startNs, long endNs,
                                    long correlationId, long bytes) {
        return new DeviceActivity(kind, name, rank, device, stream, startNs, endNs, correlationId,
                DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, bytes, ClockDomain.CUPTI);
    }

    @Override
    public void driverCall(String name, long thread, long startNs, long endNs, long correlationId, int result) {
        apiCalls.accept(new ApiCall(name, thread, 0, startNs, endNs, correlationId, result, Map.of(), ClockDomain.CUPTI));
    }
}
