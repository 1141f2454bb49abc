package dev.aorta.agent.pipeline;

import dev.aorta.agent.recorder.OsThreadIds;
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
 * a small tolerance), the largest overlap, each CUPTI record used once, and only driver calls of the record's own
 * thread: CUPTI reports OS thread ids, which {@link OsThreadIds} knows for each recording thread (Java 22+ on Linux), and a
 * thread whose id CUPTI has reported is paired with it; elsewhere a thread is paired with the CUPTI thread of its first
 * unambiguous match (timing alone, which several threads launching at once can mislead).
 *
 * <p>CUPTI runs only inside capture windows. Only records made while it ran ({@link CuptiCoverage}) are held; once
 * its source says it stopped, after the flush that handed over every record it had, CUPTI has caught up through
 * the stop. A record made while CUPTI was off is written at once: held, it waited for driver calls that never come, and at 250 000
 * launches/s between windows {@link #MAX_HELD} of them could push a window's own records out before CUPTI's
 * arrived, unjoined (a cause of the 2889 of a window's 167 472 launches an H100 run left unjoined). A held record no driver call matches is
 * counted ({@link #unjoined}) and reported.
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
    /** Copies of the records waiting for CUPTI, oldest first; taken from and given back to {@link #spare}. */
    private final Deque<CallRecord> held = new ArrayDeque<>();
    /** Records no longer held, reused for the next ones, so that holding allocates nothing once warm. */
    private final Deque<CallRecord> spare = new ArrayDeque<>();
    /** Kept driver calls: {start, end, correlation (-1 once used), CUPTI thread, name id}, host clock. */
    private final List<long[]> driverCalls = new ArrayList<>();
    /** Driver calls let go, reused for the next ones: keeping them allocates nothing once warm. */
    private final Deque<long[]> spareDriverCalls = new ArrayDeque<>();
    /** The few distinct driver call names; a kept driver call refers to its name by index. */
    private final List<String> driverNames = new ArrayList<>();
    private final Map<String, Integer> driverNameIds = new HashMap<>();
    /** Host thread -> the CUPTI (OS) thread of its driver calls: known ({@link OsThreadIds}) or guessed. */
    private final LongLongMap threadPairs = new LongLongMap();
    /** The thread ids CUPTI's driver calls have carried: a known OS id is used only once CUPTI has shown it. */
    private final LongLongMap cuptiThreads = new LongLongMap();
    /** Host thread -> its OS id from {@link OsThreadIds} (-1: unknown), looked up once: no boxing per record. */
    private final LongLongMap osThreads = new LongLongMap();
    private Long cuptiToHost;
    private final CuptiCoverage coverage;
    private long watermark = Long.MIN_VALUE;
    private long newestHost = Long.MIN_VALUE;
    private long joined;
    /** A driver call arrived out of start order since the last sort (several threads' or buffers' records interleave). */
    private boolean unsorted;
    /** Driver calls looked at while matching, all held records together: linear in the records, not quadratic. */
    private long examined;
    /** Held records written early, usually unjoined, because {@link #MAX_HELD} were waiting for CUPTI. */
    private long writtenBeforeCuptiCaughtUp;
    /** Records made while CUPTI ran that no driver call matched, written without {@code cupti_correlation}. */
    private long unjoined;

    CorrelationJoin(Fanout out, CuptiCoverage coverage) {
        this.out = out;
        this.coverage = coverage;
    }

    void anchor(ClockAnchor a) {
        if (a.from() == ClockDomain.CUPTI && a.to() == ClockDomain.HOST_MONOTONIC) {
            cuptiToHost = a.toNs() - a.fromNs();
        }
    }

    /**
     * CUPTI, unsubscribed at host {@code hostNs}, has handed over every record it had (this comes through the drain
     * thread's queue behind them): the records made before are released, joined or not.
     */
    void cuptiStopped(long hostNs) {
        watermark = Math.max(watermark, hostNs);
    }

    private boolean madeWhileCuptiRan(CallRecord call) {
        return coverage.covers(call.startNs(), call.endNs(), TOLERANCE_NS);
    }

    /** True once CUPTI delivers driver calls (and an anchor maps them): device-work records are then held. */
    boolean active() {
        return cuptiToHost != null;
    }

    /** A decoded call; {@code call} is the decoder's reused record, so one that must wait is copied. */
    void api(CallRecord call) {
        newestHost = Math.max(newestHost, call.endNs());
        if (!active() || prefix(call.kind()) == null || !madeWhileCuptiRan(call)) {
            out.call(call);
            return;
        }
        CallRecord copy = spare.isEmpty() ? new CallRecord() : spare.poll();
        copy.copyFrom(call);
        held.add(copy);
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
        Integer nameId = driverNameIds.get(c.name());
        if (nameId == null) {
            nameId = driverNames.size();
            driverNames.add(c.name());
            driverNameIds.put(c.name(), nameId);
        }
        long[] d = spareDriverCalls.isEmpty() ? new long[5] : spareDriverCalls.poll();
        d[0] = start;
        d[1] = end;
        d[2] = c.correlationId();
        d[3] = c.thread();
        d[4] = nameId;
        driverCalls.add(d);
        cuptiThreads.put(c.thread(), 1);
    }

    /** Writes what can be written: everything when {@code all}, else records CUPTI has caught up with. */
    void release(boolean all) {
        while (!held.isEmpty()) {
            CallRecord h = held.peek();
            boolean caughtUp = watermark >= h.endNs() + TOLERANCE_NS;
            boolean stale = newestHost - h.endNs() > PATIENCE_NS;
            // drained before CUPTI's stop was known, made after it: no driver call will come
            boolean afterCupti = !madeWhileCuptiRan(h);
            if (!all && !caughtUp && !stale && !afterCupti) {
                break;
            }
            write(held.poll());
        }
        long keepFrom = held.isEmpty() ? watermark - PATIENCE_NS : oldestHeldStart() - TOLERANCE_NS;
        int kept = 0;
        for (int i = 0; i < driverCalls.size(); i++) {
            long[] d = driverCalls.get(i);
            if (d[1] < keepFrom || d[2] < 0) {
                spareDriverCalls.add(d);
            } else {
                driverCalls.set(kept++, d);
            }
        }
        driverCalls.subList(kept, driverCalls.size()).clear();
    }

    /**
     * The earliest start of a held record. Not the first one's: the drain thread takes the threads' rings one after
     * the other, so a thread's records are held behind another thread's newer ones, and the driver calls they need
     * are older than the first held record (with 4 launching threads an H100 run left 79% of a window unjoined when
     * those were let go). One pass over the held records per drain cycle.
     */
    private long oldestHeldStart() {
        long oldest = Long.MAX_VALUE;
        for (CallRecord h : held) {
            oldest = Math.min(oldest, h.startNs());
        }
        return oldest;
    }

    long joined() {
        return joined;
    }

    long writtenBeforeCuptiCaughtUp() {
        return writtenBeforeCuptiCaughtUp;
    }

    long unjoined() {
        return unjoined;
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

    /** The OS thread id of a host thread, or -1; its ring noted it before any of its records reached the join. */
    private long osThread(long hostThread) {
        long os = osThreads.get(hostThread, Long.MIN_VALUE);
        if (os == Long.MIN_VALUE) {
            os = OsThreadIds.of(hostThread);
            osThreads.put(hostThread, os);
        }
        return os;
    }

    /** Writes a held record, joined when a driver call matches, and makes it spare. */
    private void write(CallRecord c) {
        if (unsorted) {   // here, not in release(): a record beyond MAX_HELD is written between releases
            driverCalls.sort(Comparator.comparingLong(d -> d[0]));
            unsorted = false;
        }
        CallKind kind = c.kind();
        String prefix = prefix(kind);
        long lo = c.startNs() - TOLERANCE_NS;
        long hi = c.endNs() + TOLERANCE_NS;
        long os = osThread(c.thread());
        if (os >= 0 && threadPairs.get(c.thread(), -1) != os && cuptiThreads.containsKey(os)) {
            // known, not guessed, once CUPTI has shown that it reports that id; it replaces a guess made before
            threadPairs.put(c.thread(), os);
        }
        boolean paired = threadPairs.containsKey(c.thread());
        long pairedThread = threadPairs.get(c.thread(), 0);
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
                    || (paired && pairedThread != d[3])) {
                continue;
            }
            inside++;
            long overlap = Math.min(d[1], c.endNs()) - Math.max(d[0], c.startNs());
            if (best == null || (kind == CallKind.LAUNCH || kind == CallKind.COPY || kind == CallKind.MEMSET
                    || kind == CallKind.GRAPH_LAUNCH ? overlap > bestOverlap : d[0] < best[0])) {
                best = d;
                bestOverlap = overlap;
            }
        }
        if (best == null) {
            if (madeWhileCuptiRan(c)) {   // not one held before CUPTI's stop was known and made after it
                unjoined++;
            }
            out.call(c);
            spare.add(c);
            return;
        }
        if (inside == 1 && !paired) {
            threadPairs.put(c.thread(), best[3]);
        }
        long correlation = best[2];
        best[2] = -1; // used
        joined++;
        out.call(c.arg("cupti_correlation", correlation).arg("cupti_calls", inside));
        spare.add(c);
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
