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
 * thread. CUPTI names a driver call's thread by a native id, which {@link OsThreadIds} knows for each recording thread
 * (Java 22+ on Linux): a thread is paired with its id once CUPTI has shown it. Where the ids are not known, a thread is
 * paired by timing: with the CUPTI thread of {@link #GUESS_AGREEMENT} unambiguous matches in a row, a pairing given up
 * after {@link #GUESS_MISSES} misses in a row (one match is not enough: a launch whose own driver call CUPTI did not
 * report, at a window's edge, can hold another thread's call alone, and a wrong pairing loses every later launch).
 *
 * <p>CUPTI runs only inside capture windows. Only records made while it ran ({@link CuptiCoverage}) are held; once
 * its source says it stopped, after the flush that handed over every record it had, CUPTI has caught up through
 * the stop. A record made while CUPTI was off is written at once: held, it waited for driver calls that never come, and at 250 000
 * launches/s between windows {@link #MAX_HELD} of them could push a window's own records out before CUPTI's
 * arrived, unjoined (a cause of the 2889 of a window's 167 472 launches an H100 run left unjoined). A held record no driver call matches is
 * counted ({@link #unjoined}) and reported.
 *
 * <p>CUPTI keeps a buffer per launching thread (CUPTI 12.3's option, CUDA 13's default) and hands each over when it is
 * full, so one thread's driver calls arrive well ahead of another's: a record of a thread paired by its ids waits
 * for that thread's own driver calls to pass its end (or for a flush that hands over everything), not for any
 * thread's. Judged by any thread's, 4 threads at 280 000 launches/s on an H100 left 10% of a window unjoined in bursts
 * as the buffers came in. A record that waits longer than {@link #FLUSH_WAITING_AFTER_NS} (a thread launching too
 * little to fill its buffer) asks the drain thread for a forced flush ({@link #waitingOnCupti}).
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
    /** Unambiguous matches in a row with one CUPTI thread that pair a host thread with it by timing. */
    static final int GUESS_AGREEMENT = 4;
    /** Misses in a row that undo a pairing by timing. */
    static final int GUESS_MISSES = 16;
    private static final long NONE = -1;
    /** Threads whose emptied queues are kept for their next records (a queue grown to a window's records is reused). */
    private static final int KEPT_THREADS = 64;
    /** A held record waiting this long for its thread's driver calls asks for a forced flush of CUPTI's buffers. */
    static final long FLUSH_WAITING_AFTER_NS = 200_000_000L;

    private final Fanout out;
    /**
     * Copies of the records waiting for CUPTI, per host thread and in the order of their ends (a ring's order), as each
     * thread's wait ends on its own; taken from and given back to {@link #spare}.
     */
    private final List<HeldRecords> held = new ArrayList<>();
    /** The thread whose records came last: the drain thread hands over a ring's records in a run. */
    private HeldRecords lastHeld;
    private int heldCount;
    /** Records no longer held, reused for the next ones, so that holding allocates nothing once warm. */
    private final Deque<CallRecord> spare = new ArrayDeque<>();
    /** Kept driver calls: {start, end, correlation (-1 once used), CUPTI thread, name id}, host clock. */
    private final List<long[]> driverCalls = new ArrayList<>();
    /** Driver calls let go, reused for the next ones: keeping them allocates nothing once warm. */
    private final Deque<long[]> spareDriverCalls = new ArrayDeque<>();
    /** The few distinct driver call names; a kept driver call refers to its name by index. */
    private final List<String> driverNames = new ArrayList<>();
    private final Map<String, Integer> driverNameIds = new HashMap<>();
    /** Host thread -> the CUPTI thread of its driver calls, known: one of its native ids that CUPTI has shown. */
    private final LongLongMap knownPairs = new LongLongMap();
    /** Host thread -> the CUPTI thread of its driver calls as timing suggests ({@link #NONE}: none now). */
    private final LongLongMap guessedPairs = new LongLongMap();
    /** Host thread -> the CUPTI thread of its latest unambiguous matches, while not paired, and how many in a row. */
    private final LongLongMap candidates = new LongLongMap();
    private final LongLongMap candidateRuns = new LongLongMap();
    /** Host thread -> misses in a row while paired by timing. */
    private final LongLongMap guessMisses = new LongLongMap();
    /** The thread ids CUPTI's driver calls have carried: a native id is used only once CUPTI has shown it. */
    private final LongLongMap cuptiThreads = new LongLongMap();
    /** Host thread -> its native ids from {@link OsThreadIds}, looked up once: no boxing per record. */
    private final LongLongMap pthreadIds = new LongLongMap();
    private final LongLongMap gettids = new LongLongMap();
    private long pairedById;
    private long pairedByTiming;
    private Long cuptiToHost;
    private final CuptiCoverage coverage;
    /** The newest driver call end seen of any CUPTI thread: how far CUPTI has caught up for records not paired by id. */
    private long watermark = Long.MIN_VALUE;
    /** CUPTI thread -> the newest end of its driver calls seen: how far its own buffer has been handed over. */
    private final LongLongMap caughtUpByThread = new LongLongMap();
    /** CUPTI handed over every record made before this (a stop or a forced flush), whichever thread made it. */
    private long handedOverThrough = Long.MIN_VALUE;
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
     * CUPTI, stopped or flushed from host time {@code hostNs} on, has handed over every record made before it (this
     * comes through the drain thread's queue behind them): the records made before are released, joined or not.
     */
    void handedOverThrough(long hostNs) {
        handedOverThrough = Math.max(handedOverThrough, hostNs);
        watermark = Math.max(watermark, hostNs);
    }

    /** Whether a held record has waited for CUPTI's driver calls since before {@code nowNs - FLUSH_WAITING_AFTER_NS}. */
    boolean waitingOnCupti(long nowNs) {
        for (HeldRecords t : held) {
            CallRecord h = t.records.peek();
            if (h != null && nowNs - h.endNs() > FLUSH_WAITING_AFTER_NS && handedOverThrough < h.endNs() + TOLERANCE_NS) {
                return true;
            }
        }
        return false;
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
        heldOf(copy.thread()).records.add(copy);
        if (++heldCount > MAX_HELD) {
            writtenBeforeCuptiCaughtUp++;
            writeOldestHeld();
        }
    }

    /** A CUPTI driver API record (CUPTI clock). */
    void driverCall(ApiCall c) {
        if (cuptiToHost == null || c.clock() != ClockDomain.CUPTI) {
            return;
        }
        long start = c.startNs() + cuptiToHost;
        long end = c.endNs() + cuptiToHost;
        watermark = Math.max(watermark, end);
        if (end > caughtUpByThread.get(c.thread(), Long.MIN_VALUE)) {
            caughtUpByThread.put(c.thread(), end);
        }
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
        for (int t = held.size() - 1; t >= 0; t--) {
            HeldRecords thread = held.get(t);
            long through = caughtUpThrough(thread.thread);
            while (!thread.records.isEmpty()) {
                CallRecord h = thread.records.peek();
                boolean caughtUp = through >= h.endNs() + TOLERANCE_NS;
                boolean stale = newestHost - h.endNs() > PATIENCE_NS;
                // drained before CUPTI's stop was known, made after it: no driver call will come
                boolean afterCupti = !madeWhileCuptiRan(h);
                if (!all && !caughtUp && !stale && !afterCupti) {
                    break;
                }
                heldCount--;
                write(thread.records.poll());
            }
            if (thread.records.isEmpty() && held.size() > KEPT_THREADS) {   // threads come and go
                held.remove(t);
                lastHeld = null;
            }
        }
        long keepFrom = heldCount == 0 ? watermark - PATIENCE_NS : oldestHeldStart() - TOLERANCE_NS;
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
     * How far CUPTI has handed over the driver calls of a host thread: its own CUPTI thread's where it is paired by its
     * ids; only a stop or a flush where its ids are known but CUPTI has not shown them yet (its buffer has not come);
     * any thread's where its ids are unknown.
     */
    private long caughtUpThrough(long hostThread) {
        long paired = cuptiThreadOf(hostThread);
        if (paired != NONE && knownPairs.containsKey(hostThread)) {
            return Math.max(handedOverThrough, caughtUpByThread.get(paired, Long.MIN_VALUE));
        }
        if (nativeId(pthreadIds, hostThread, true) != NONE) {
            return handedOverThrough;
        }
        return watermark;
    }

    /**
     * The earliest start of a held record. Not the first one's: the drain thread takes the threads' rings one after
     * the other, so a thread's records are held behind another thread's newer ones, and the driver calls they need
     * are older than the first held record (with 4 launching threads an H100 run left 79% of a window unjoined when
     * those were let go). One pass over the held records per drain cycle.
     */
    private long oldestHeldStart() {
        long oldest = Long.MAX_VALUE;
        for (HeldRecords t : held) {
            for (CallRecord h : t.records) {
                oldest = Math.min(oldest, h.startNs());
            }
        }
        return oldest;
    }

    private HeldRecords heldOf(long thread) {
        if (lastHeld != null && lastHeld.thread == thread) {
            return lastHeld;
        }
        for (HeldRecords t : held) {
            if (t.thread == thread) {
                return lastHeld = t;
            }
        }
        HeldRecords t = new HeldRecords(thread);
        held.add(t);
        return lastHeld = t;
    }

    /** Beyond {@link #MAX_HELD}: the record that ended first, of whichever thread. */
    private void writeOldestHeld() {
        HeldRecords oldest = null;
        for (HeldRecords t : held) {
            if (!t.records.isEmpty() && (oldest == null || t.records.peek().endNs() < oldest.records.peek().endNs())) {
                oldest = t;
            }
        }
        heldCount--;
        write(oldest.records.poll());
    }

    /** One host thread's records waiting for CUPTI. */
    private static final class HeldRecords {
        final long thread;
        final Deque<CallRecord> records = new ArrayDeque<>();

        HeldRecords(long thread) {
            this.thread = thread;
        }
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

    /**
     * The CUPTI thread a host thread's driver calls carry, or {@link #NONE} while it is not paired: by its native ids
     * once CUPTI has shown one of them, else by timing. Its ring noted its ids before any of its records reached the join.
     */
    private long cuptiThreadOf(long hostThread) {
        long known = knownPairs.get(hostThread, NONE);
        if (known != NONE) {
            return known;
        }
        long id = nativeId(pthreadIds, hostThread, true);
        if (id == NONE || !cuptiThreads.containsKey(id)) {
            id = nativeId(gettids, hostThread, false);
        }
        if (id != NONE && cuptiThreads.containsKey(id)) {
            knownPairs.put(hostThread, id);
            pairedById++;
            return id;
        }
        return guessedPairs.get(hostThread, NONE);
    }

    private static long nativeId(LongLongMap cache, long hostThread, boolean pthread) {
        long id = cache.get(hostThread, Long.MIN_VALUE);
        if (id == Long.MIN_VALUE) {
            id = pthread ? OsThreadIds.pthread(hostThread) : OsThreadIds.gettid(hostThread);
            cache.put(hostThread, id);
        }
        return id;
    }

    /** Timing's evidence about an unknown thread's pairing: the CUPTI thread it matched alone, or a miss ({@link #NONE}). */
    private void learnPairing(long hostThread, long paired, long matchedAlone, boolean matched) {
        if (paired != NONE) {
            long misses = matched ? 0 : guessMisses.get(hostThread, 0) + 1;
            guessMisses.put(hostThread, misses);
            if (misses >= GUESS_MISSES) {
                guessedPairs.put(hostThread, NONE);
                guessMisses.put(hostThread, 0);
                candidateRuns.put(hostThread, 0);
            }
            return;
        }
        if (matchedAlone == NONE) {
            return;
        }
        long run = candidates.get(hostThread, NONE) == matchedAlone ? candidateRuns.get(hostThread, 0) + 1 : 1;
        candidates.put(hostThread, matchedAlone);
        candidateRuns.put(hostThread, run);
        if (run >= GUESS_AGREEMENT) {
            guessedPairs.put(hostThread, matchedAlone);
            pairedByTiming++;
        }
    }

    /** Host threads paired with CUPTI's threads by their native ids, and by timing (a thread may be counted twice). */
    long pairedById() {
        return pairedById;
    }

    long pairedByTiming() {
        return pairedByTiming;
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
        long pairedThread = cuptiThreadOf(c.thread());
        boolean paired = pairedThread != NONE;
        boolean known = paired && knownPairs.containsKey(c.thread());
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
        if (!known) {
            learnPairing(c.thread(), pairedThread, best != null && inside == 1 ? best[3] : NONE, best != null);
        }
        if (best == null) {
            if (madeWhileCuptiRan(c)) {   // not one held before CUPTI's stop was known and made after it
                unjoined++;
            }
            out.call(c);
            spare.add(c);
            return;
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
