package dev.aorta.workloads.metrics;

import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.SampleStats;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How long kernels of the waiting role (e.g. hetero_kernels' small ops) wait between becoming ready
 * ({@code max(queued, end of their stream predecessor)}) and starting, split by whether a kernel of the
 * blocking role (the large GEMMs) was running at the moment they became ready. A large
 * {@code behindBlocking} mean next to a small {@code otherwise} mean is the convoy effect.
 */
public record ConvoyEffect(boolean available, String unavailableReason, String waitingRole, String blockingRole,
                           SampleStats behindBlockingUs, SampleStats otherwiseUs) {

    public static ConvoyEffect of(List<List<DeviceActivity>> windows, Set<Long> waitingStreams,
                                  Set<Long> blockingStreams, String waitingRole, String blockingRole) {
        List<Double> behind = new ArrayList<>();
        List<Double> otherwise = new ArrayList<>();
        boolean anyQueued = false;
        for (List<DeviceActivity> window : windows) {
            List<DeviceActivity> blocking = window.stream()
                    .filter(a -> blockingStreams.contains(a.stream())).toList();
            List<DeviceActivity> waiting = new ArrayList<>(window.stream()
                    .filter(a -> waitingStreams.contains(a.stream())).toList());
            waiting.sort(Comparator.comparingLong(DeviceActivity::startNs));
            Map<Long, DeviceActivity> lastOnStream = new HashMap<>();
            for (DeviceActivity k : waiting) {
                DeviceActivity prevSame = lastOnStream.put(k.stream(), k);
                if (k.queuedNs() == DeviceActivity.UNKNOWN) {
                    continue;
                }
                anyQueued = true;
                long ready = Math.max(k.queuedNs(), prevSame == null ? Long.MIN_VALUE : prevSame.endNs());
                double waitUs = Math.max(0, k.startNs() - ready) / 1e3;
                boolean blocked = blocking.stream().anyMatch(b -> b.startNs() <= ready && ready < b.endNs());
                (blocked ? behind : otherwise).add(waitUs);
            }
        }
        if (!anyQueued) {
            return new ConvoyEffect(false, "the device activity has no 'queued' timestamps, so the moment a "
                    + "kernel became ready is unknown", waitingRole, blockingRole, null, null);
        }
        return new ConvoyEffect(true, null, waitingRole, blockingRole, statsOrNull(behind), statsOrNull(otherwise));
    }

    private static SampleStats statsOrNull(List<Double> values) {
        return values.isEmpty() ? null : SampleStats.of(values.stream().mapToDouble(Double::doubleValue).toArray());
    }
}
