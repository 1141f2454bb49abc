package dev.aorta.workloads.metrics;

import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Our dispatch latency (docs/metrics.md#dispatch-latency): how long a kernel that was already queued waits once it could
 * run. For kernel K: {@code ready = max(queued, end of K's predecessor on its own stream)}; the
 * device-side predecessor P is the kernel that ended last at or before K started. K counts when it
 * was queued no later than P ended (it was waiting, not starved by the host), with
 * {@code latency = start − ready}, split by whether P ran on K's stream (same-stream) or another
 * (cross-stream: the device switched queues). Needs {@code queued}; without it the result says why.
 */
public record DispatchLatency(boolean available, String unavailableReason, SampleStats sameStreamUs,
                              SampleStats crossStreamUs) {

    public static DispatchLatency of(List<List<DeviceActivity>> windows) {
        List<Double> same = new ArrayList<>();
        List<Double> cross = new ArrayList<>();
        boolean anyQueued = false;
        for (List<DeviceActivity> window : windows) {
            List<DeviceActivity> byStart = new ArrayList<>(window);
            byStart.sort(Comparator.comparingLong(DeviceActivity::startNs));
            List<DeviceActivity> byEnd = new ArrayList<>(window);
            byEnd.sort(Comparator.comparingLong(DeviceActivity::endNs));
            java.util.Map<Long, DeviceActivity> lastOnStream = new java.util.HashMap<>();
            for (DeviceActivity k : byStart) {
                DeviceActivity prevSame = lastOnStream.put(k.stream(), k);
                if (k.queuedNs() == DeviceActivity.UNKNOWN) {
                    continue;
                }
                anyQueued = true;
                Optional<DeviceActivity> pred = lastEndedBy(byEnd, k);
                if (pred.isEmpty() || k.queuedNs() > pred.get().endNs()) {
                    continue;
                }
                long ready = Math.max(k.queuedNs(), prevSame == null ? Long.MIN_VALUE : prevSame.endNs());
                double latencyUs = Math.max(0, k.startNs() - ready) / 1e3;
                (pred.get().stream() == k.stream() ? same : cross).add(latencyUs);
            }
        }
        if (!anyQueued) {
            return new DispatchLatency(false, "the device activity has no 'queued' timestamps "
                    + "(CUPTI latency timestamps are needed; sampled event pairs cannot tell queueing from running)",
                    null, null);
        }
        return new DispatchLatency(true, null, statsOrNull(same), statsOrNull(cross));
    }

    /** The kernel other than k with the latest end at or before k's start; same stream wins a tie. */
    private static Optional<DeviceActivity> lastEndedBy(List<DeviceActivity> byEnd, DeviceActivity k) {
        int lo = 0;
        int hi = byEnd.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (byEnd.get(mid).endNs() <= k.startNs()) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        DeviceActivity best = null;
        for (int i = lo - 1; i >= 0; i--) {
            DeviceActivity c = byEnd.get(i);
            if (c == k) {
                continue;
            }
            if (best == null) {
                best = c;
            } else if (c.endNs() != best.endNs()) {
                break;
            }
            if (c.endNs() == best.endNs() && c.stream() == k.stream()) {
                best = c;
            }
        }
        return Optional.ofNullable(best);
    }

    static SampleStats statsOrNull(List<Double> values) {
        return values.isEmpty() ? null : SampleStats.of(values.stream().mapToDouble(Double::doubleValue).toArray());
    }
}
