package dev.aorta.agent.pipeline;

import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Joins the agent's API records to device activity: CUPTI reports each driver call (cuLaunchKernel,
 * cuMemcpy*, ...) with the correlation id its kernel or copy carries; the agent's record of the call that
 * made it (a JCuda call, an aorta-gpu launch, a GEMM or collective that launches inside) spans that driver
 * call in time. Records of device work are held until CUPTI's records for their time have arrived, then
 * written with {@code cupti_correlation} (the first driver call inside them) and {@code cupti_calls} (how
 * many). Matching: same kind of driver call, time containment on the host clock (through the anchor, with
 * a small tolerance), the largest overlap, each CUPTI record used once, and threads paired once a match was
 * unambiguous (CUPTI reports OS thread ids).
 *
 * <p>At 130 000 launches/s CUPTI hands over tens of thousands of driver calls per buffer, so matching must
 * not walk them: only driver calls that do device work are kept (CUPTI reports every driver call — syncs,
 * queries, context calls — and those never match), kept sorted by start, and each held record looks at the
 * driver calls starting inside its own time span only (binary search), not at everything kept before it.
 */
final class CorrelationJoin {
    /** Slack for the anchor's error when testing containment. */
    static final long TOLERANCE_NS = 5_000;
    /** A held record is written unjoined once this much newer work has been seen without a match. */
    static final long PATIENCE_NS = 2_000_000_000L;
    static final int MAX_HELD = 200_000;

    private final Fanout out;
    private final Deque<Held> held = new ArrayDeque<>();
    private final List<long[]> driverCalls = new ArrayList<>();
    /** The few distinct driver call names; a kept driver call refers to its name by index. */
    private final List<String> driverNames = new ArrayList<>();
    private final Map<String, Integer> driverNameIds = new HashMap<>();
    private final Map<Long, Long> threadPairs = new HashMap<>();
    private Long cuptiToHost;
    private long watermark = Long.MIN_VALUE;
    private long newestHost = Long.MIN_VALUE;
    private long joined;
    /** A driver call arrived out of start order since the last sort (several threads' or buffers' records interleave). */
    private boolean unsorted;
    /** Driver calls looked at while matching, all held records together: linear in the records, not quadratic. */
    private long examined;
    /** Held records written early, usually unjoined, because {@link #MAX_HELD} were waiting for CUPTI. */
    private long writtenBeforeCuptiCaughtUp;

    private record Held(ApiCall call, CallKind kind) {
    }

    CorrelationJoin(Fanout out) {
        this.out = out;
    }

    void anchor(ClockAnchor a) {
        if (a.from() == ClockDomain.CUPTI && a.to() == ClockDomain.HOST_MONOTONIC) {
            cuptiToHost = a.toNs() - a.fromNs();
        }
    }

    /** True once CUPTI delivers driver calls (and an anchor maps them): device-work records are then held. */
    boolean active() {
        return cuptiToHost != null;
    }

    void api(ApiCall call, CallKind kind) {
        newestHost = Math.max(newestHost, call.endNs());
        if (!active() || prefix(kind) == null) {
            out.api(call, kind);
            return;
        }
        held.add(new Held(call, kind));
        if (held.size() > MAX_HELD) {
            writtenBeforeCuptiCaughtUp++;
            write(held.poll());
        }
    }

    /** A CUPTI driver API record (CUPTI clock). */
    void driverCall(ApiCall c) {
        if (cuptiToHost == null || c.clock() != ClockDomain.CUPTI) {
            return;
        }
        long start = c.startNs() + cuptiToHost;
        long end = c.endNs() + cuptiToHost;
        watermark = Math.max(watermark, end);   // any driver call shows how far CUPTI has caught up
        if (!doesDeviceWork(c.name())) {
            return;
        }
        if (!driverCalls.isEmpty() && start < driverCalls.get(driverCalls.size() - 1)[0]) {
            unsorted = true;
        }
        int nameId = driverNameIds.computeIfAbsent(c.name(), n -> {
            driverNames.add(n);
            return driverNames.size() - 1;
        });
        driverCalls.add(new long[] {start, end, c.correlationId(), c.thread(), nameId});
    }

    /** Writes what can be written: everything when {@code all}, else records CUPTI has caught up with. */
    void release(boolean all) {
        while (!held.isEmpty()) {
            Held h = held.peek();
            boolean caughtUp = watermark >= h.call.endNs() + TOLERANCE_NS;
            boolean stale = newestHost - h.call.endNs() > PATIENCE_NS;
            if (!all && !caughtUp && !stale) {
                break;
            }
            write(held.poll());
        }
        long keepFrom = held.isEmpty() ? watermark - PATIENCE_NS : held.peek().call.startNs() - TOLERANCE_NS;
        driverCalls.removeIf(d -> d[1] < keepFrom || d[2] < 0);
    }

    long joined() {
        return joined;
    }

    long writtenBeforeCuptiCaughtUp() {
        return writtenBeforeCuptiCaughtUp;
    }

    long examined() {
        return examined;
    }

    /** Index of the first kept driver call starting at or after {@code ns} (the list is sorted by start). */
    private int firstStartingAtOrAfter(long ns) {
        int lo = 0;
        int hi = driverCalls.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (driverCalls.get(mid)[0] < ns) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private void write(Held h) {
        if (unsorted) {   // here, not in release(): a record beyond MAX_HELD is written between releases
            driverCalls.sort(Comparator.comparingLong(d -> d[0]));
            unsorted = false;
        }
        ApiCall c = h.call;
        String prefix = prefix(h.kind);
        long lo = c.startNs() - TOLERANCE_NS;
        long hi = c.endNs() + TOLERANCE_NS;
        Long pairedThread = threadPairs.get(c.thread());
        long[] best = null;
        long bestOverlap = -1;
        int inside = 0;
        for (int i = firstStartingAtOrAfter(lo); i < driverCalls.size(); i++) {
            long[] d = driverCalls.get(i);
            if (d[0] > hi) {
                break;
            }
            examined++;
            if (d[2] < 0 || d[1] > hi || !driverNames.get((int) d[4]).startsWith(prefix)
                    || (pairedThread != null && pairedThread != d[3])) {
                continue;
            }
            inside++;
            long overlap = Math.min(d[1], c.endNs()) - Math.max(d[0], c.startNs());
            if (best == null || (h.kind == CallKind.LAUNCH || h.kind == CallKind.COPY || h.kind == CallKind.MEMSET
                    || h.kind == CallKind.GRAPH_LAUNCH ? overlap > bestOverlap : d[0] < best[0])) {
                best = d;
                bestOverlap = overlap;
            }
        }
        if (best == null) {
            out.api(c, h.kind);
            return;
        }
        if (inside == 1 && pairedThread == null) {
            threadPairs.put(c.thread(), best[3]);
        }
        long correlation = best[2];
        best[2] = -1; // used
        joined++;
        out.api(new ApiCall(c.name(), c.thread(), c.stream(), c.startNs(), c.endNs(), c.correlationId(), c.result(),
                joinedArgs(c.args(), correlation, inside), c.clock()), h.kind);
    }

    /**
     * The call's arguments plus the join's two, built straight into the immutable map {@link ApiCall} keeps (which
     * it then takes as it is): this runs for every joined call, and copying through a mutable map first was the
     * largest cost of the drain thread with CUPTI on.
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> joinedArgs(Map<String, Object> args, long correlation, int calls) {
        Map.Entry<String, Object>[] entries = new Map.Entry[args.size() + 2];
        int i = 0;
        for (Map.Entry<String, Object> e : args.entrySet()) {
            entries[i++] = e;
        }
        entries[i++] = Map.entry("cupti_correlation", correlation);
        entries[i] = Map.entry("cupti_calls", (long) calls);
        return Map.ofEntries(entries);
    }

    private static boolean doesDeviceWork(String driverCall) {
        return driverCall.startsWith("cuLaunch") || driverCall.startsWith("cuGraphLaunch")
                || driverCall.startsWith("cuMemcpy") || driverCall.startsWith("cuMemset");
    }

    /** The driver calls that do a kind's device work (null: the kind enqueues none). */
    private static String prefix(CallKind kind) {
        return switch (kind) {
            case LAUNCH, GEMM, COLLECTIVE -> "cuLaunch";
            case GRAPH_LAUNCH -> "cuGraphLaunch";
            case COPY -> "cuMemcpy";
            case MEMSET -> "cuMemset";
            default -> null;
        };
    }
}
