package dev.aorta.agent.pipeline;

import dev.aorta.agent.recorder.OsThreadIds;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class CorrelationJoinTest {
    private static final long OFFSET = 1_000_000_000_000L;
    private static final long LAUNCH_EVERY_NS = 7_692;   // 130 000 launches/s from one thread
    private static final long HOST0 = 1_000_000_000L;
    /** CUPTI subscribed at {@link #HOST0} (by {@link #anchoredJoin}). */
    private final CuptiCoverage coverage = new CuptiCoverage();

    /**
     * CUPTI hands over a whole buffer of driver calls at once, interleaved with calls that do no device work
     * (syncs): matching the held launches must look at the few driver calls inside each launch's own span,
     * not at every driver call kept before it — a scan from the start made this quadratic in the batch and
     * kept the drain thread 2–4× slower than the records arrived.
     */
    @Test
    void aLargeCuptiBatchIsJoinedLookingAtAFewDriverCallsPerRecord() {
        List<ApiCall> written = new ArrayList<>();
        CorrelationJoin join = anchoredJoin(written);
        int launches = 40_000;
        List<ApiCall> cuptiBatch = new ArrayList<>();
        long t = HOST0;
        for (long seq = 1; seq <= launches; seq++, t += LAUNCH_EVERY_NS) {
            join.api(CallRecords.of(new ApiCall("cuLaunchKernel", 1, 0, t, t + 6_000, seq, 0, Map.of("kind", "launch"),
                    ClockDomain.HOST_MONOTONIC), CallKind.LAUNCH));
            cuptiBatch.add(driverCall("cuLaunchKernel", t + 1_000, seq));
            cuptiBatch.add(driverCall("cuStreamSynchronize", t + 6_500, launches + seq));
        }
        cuptiBatch.add(driverCall("cuCtxSynchronize", t + 1_000_000, 2L * launches + 1));
        join.release(false);
        assertThat(written).as("held until CUPTI's records for their time arrive").isEmpty();

        cuptiBatch.forEach(join::driverCall);
        join.release(false);

        assertThat(written).hasSize(launches);
        assertThat(written).allSatisfy(c -> assertThat(c.args()).containsEntry("cupti_correlation", c.correlationId()));
        assertThat(join.joined()).isEqualTo(launches);
        // own driver call plus the next launch's, whose start falls within the tolerance
        assertThat(join.examined()).isLessThanOrEqualTo(3L * launches);
    }

    @Test
    void beyondTheHoldingLimitTheOldestRecordIsWrittenAndCounted() {
        List<ApiCall> written = new ArrayList<>();
        CorrelationJoin join = anchoredJoin(written);
        int launches = CorrelationJoin.MAX_HELD + 5;
        for (long seq = 1; seq <= launches; seq++) {
            long t = HOST0 + seq * LAUNCH_EVERY_NS;
            join.api(CallRecords.of(new ApiCall("cuLaunchKernel", 1, 0, t, t + 6_000, seq, 0, Map.of("kind", "launch"),
                    ClockDomain.HOST_MONOTONIC), CallKind.LAUNCH));
        }

        assertThat(written).extracting(ApiCall::correlationId).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(written).allSatisfy(c -> assertThat(c.args()).doesNotContainKey("cupti_correlation"));
        assertThat(join.writtenBeforeCuptiCaughtUp()).isEqualTo(5);
    }

    @Test
    void driverCallsArrivingOutOfOrderAreStillFound() {
        List<ApiCall> written = new ArrayList<>();
        CorrelationJoin join = anchoredJoin(written);
        int launches = 1_000;
        List<ApiCall> cuptiBatch = new ArrayList<>();
        for (long seq = 1; seq <= launches; seq++) {
            long t = HOST0 + seq * LAUNCH_EVERY_NS;
            join.api(CallRecords.of(new ApiCall("cuLaunchKernel", 1, 0, t, t + 6_000, seq, 0, Map.of("kind", "launch"),
                    ClockDomain.HOST_MONOTONIC), CallKind.LAUNCH));
            cuptiBatch.add(driverCall("cuLaunchKernel", t + 1_000, seq));
        }
        Collections.shuffle(cuptiBatch, new Random(7));   // several threads' buffers, interleaved

        cuptiBatch.forEach(join::driverCall);
        join.release(true);

        assertThat(written).hasSize(launches);
        assertThat(written).allSatisfy(c -> assertThat(c.args()).containsEntry("cupti_correlation", c.correlationId()));
    }

    /**
     * CUPTI runs only in capture windows, while the API records go on between them at 250 000 launches/s: those
     * must not be held for driver calls that never come, or more than {@link CorrelationJoin#MAX_HELD} of them
     * push the window's own launches out, unjoined, before CUPTI's batch for the window is taken.
     */
    @Test
    void aWindowsLaunchesAreAllJoinedWhileFarMoreLaunchesBetweenWindowsComeBeforeAndAfterCuptisBatch() {
        List<ApiCall> written = new ArrayList<>();
        CorrelationJoin join = anchoredJoin(written);
        coverage.unsubscribing(HOST0 + 1_000_000);     // paused until the first window
        join.handedOverThrough(HOST0 + 1_000_000);
        long t = HOST0 + 2_000_000;
        long seq = 1;
        for (int i = 0; i < CorrelationJoin.MAX_HELD + 50_000; i++, t += 4_000) {
            join.api(launch(t, seq++));
        }
        assertThat(written).as("made while CUPTI was off: written at once").hasSize(CorrelationJoin.MAX_HELD + 50_000);

        long windowStart = t;
        coverage.subscribing(windowStart - 20_000);
        join.anchor(new ClockAnchor(ClockDomain.CUPTI, windowStart + OFFSET, ClockDomain.HOST_MONOTONIC, windowStart));
        List<ApiCall> cuptiBatch = new ArrayList<>();
        long firstInWindow = seq;
        for (int i = 0; i < 10_000; i++, t += LAUNCH_EVERY_NS) {
            join.api(launch(t, seq));
            cuptiBatch.add(driverCall("cuLaunchKernel", t + 1_000, seq++));
        }
        long windowEnd = t;
        coverage.unsubscribing(windowEnd + 500_000);
        // while CUPTI flushes, the drain thread goes on taking the threads' newer records: all of them come before
        // CUPTI's batch for the window (and the stop queued behind it)
        t += 1_000_000;
        for (int i = 0; i < CorrelationJoin.MAX_HELD + 50_000; i++, t += 4_000) {
            join.api(launch(t, seq++));
        }
        cuptiBatch.forEach(join::driverCall);
        join.handedOverThrough(windowEnd + 500_000);
        join.release(false);

        assertThat(written).hasSize((int) seq - 1);
        assertThat(written).filteredOn(c -> c.correlationId() >= firstInWindow && c.correlationId() < firstInWindow + 10_000)
                .hasSize(10_000)
                .allSatisfy(c -> assertThat(c.args()).containsEntry("cupti_correlation", c.correlationId()));
        assertThat(join.joined()).isEqualTo(10_000);
        assertThat(join.unjoined()).isZero();
        assertThat(join.writtenBeforeCuptiCaughtUp()).isZero();
    }

    /**
     * The drain thread takes the threads' rings one after the other, so the join holds one thread's records, then the
     * next thread's older ones: the oldest held record is not the first. Issue 16's H100 run (4 launching threads)
     * left 669 204 of a window's 846 852 launches unjoined because the driver calls older than the first held record
     * were let go while the other threads' held records still needed them.
     */
    @Test
    void launchesOfSeveralThreadsDrainedThreadByThreadAreAllJoined() {
        List<ApiCall> written = new ArrayList<>();
        CorrelationJoin join = anchoredJoin(written);
        int threads = 4;
        int perCycle = 100;
        long every = 4 * LAUNCH_EVERY_NS;
        long cycleNs = perCycle * every;
        List<ApiCall> cuptiBatch = new ArrayList<>();
        long launches = 0;
        for (int cycle = 0; cycle < 5; cycle++) {
            long cycleStart = HOST0 + cycle * cycleNs;
            for (int thread = 0; thread < threads; thread++) {   // ring by ring, as the drain thread takes them
                for (int k = 0; k < perCycle; k++) {
                    long t = cycleStart + thread * 1_500 + k * every;
                    long seq = 1 + cycle * threads * perCycle + thread * perCycle + k;
                    join.api(CallRecords.of(new ApiCall("cuLaunchKernel", 1 + thread, 0, t, t + 6_000, seq, 0,
                            Map.of("kind", "launch"), ClockDomain.HOST_MONOTONIC), CallKind.LAUNCH));
                    launches++;
                }
            }
            cuptiBatch.forEach(join::driverCall);   // CUPTI's records of the cycle before
            cuptiBatch.clear();
            for (int thread = 0; thread < threads; thread++) {
                for (int k = 0; k < perCycle; k++) {
                    long t = cycleStart + thread * 1_500 + k * every;
                    long seq = 1 + cycle * threads * perCycle + thread * perCycle + k;
                    cuptiBatch.add(new ApiCall("cuLaunchKernel", 100_001 + thread, 0, t + 1_000 + OFFSET,
                            t + 4_000 + OFFSET, seq, 0, Map.of(), ClockDomain.CUPTI));
                }
            }
            join.release(false);
        }
        cuptiBatch.forEach(join::driverCall);
        join.release(true);

        assertThat(written).hasSize((int) launches);
        assertThat(written).allSatisfy(c -> assertThat(c.args()).containsEntry("cupti_correlation", c.correlationId()));
        assertThat(join.unjoined()).isZero();
    }

    /**
     * A thread's first launch whose own driver call CUPTI did not report, with another thread's driver call inside its
     * span: paired by timing, the thread would be taken for the other one and none of its later launches would join.
     * CUPTI names threads by the low 32 bits of their pthread handles: with those known, only the first launch goes
     * unjoined.
     */
    @Test
    void aThreadWhosePthreadIdIsKnownIsNeverTakenForAnotherThread() {
        OsThreadIds.note(9_101, 300_001, 71);
        OsThreadIds.note(9_102, 300_002, 72);
        List<ApiCall> written = twoThreadsTheFirstsFirstDriverCallMissing(9_101, 9_102, 300_001, 300_002);

        assertThat(written).hasSize(100);
        assertThat(written).filteredOn(c -> c.correlationId() != 1)
                .allSatisfy(c -> assertThat(c.args()).containsEntry("cupti_correlation", c.correlationId()));
        assertThat(written).filteredOn(c -> c.correlationId() == 1).singleElement()
                .satisfies(c -> assertThat(c.args()).doesNotContainKey("cupti_correlation"));
    }

    /**
     * CUPTI keeps a buffer per launching thread: one thread's driver calls of the whole span can arrive before any of
     * another's. The other thread's records wait for their own thread's driver calls, not for any thread's, and all
     * join; one that waits too long asks for a forced flush, and a flush releases it.
     */
    @Test
    void aThreadsRecordsWaitForItsOwnCuptiBufferNotAnotherThreads() {
        OsThreadIds.note(9_501, 600_001, 81);
        OsThreadIds.note(9_502, 600_002, 82);
        List<ApiCall> written = new ArrayList<>();
        CorrelationJoin join = anchoredJoin(written);
        List<ApiCall> firstsBuffer = new ArrayList<>();
        List<ApiCall> secondsBuffer = new ArrayList<>();
        for (int k = 0; k < 100; k++) {
            long t = HOST0 + k * 20_000L;
            join.api(CallRecords.of(new ApiCall("cuLaunchKernel", 9_501, 0, t, t + 6_000, 1 + 2L * k, 0,
                    Map.of("kind", "launch"), ClockDomain.HOST_MONOTONIC), CallKind.LAUNCH));
            join.api(CallRecords.of(new ApiCall("cuLaunchKernel", 9_502, 0, t + 3_000, t + 9_000, 2 + 2L * k, 0,
                    Map.of("kind", "launch"), ClockDomain.HOST_MONOTONIC), CallKind.LAUNCH));
            firstsBuffer.add(new ApiCall("cuLaunchKernel", 600_001, 0, t + 1_000 + OFFSET, t + 4_000 + OFFSET,
                    1 + 2L * k, 0, Map.of(), ClockDomain.CUPTI));
            secondsBuffer.add(new ApiCall("cuLaunchKernel", 600_002, 0, t + 4_000 + OFFSET, t + 7_000 + OFFSET,
                    2 + 2L * k, 0, Map.of(), ClockDomain.CUPTI));
        }
        join.driverCall(secondsBuffer.get(0));   // CUPTI has shown the second thread's id
        firstsBuffer.forEach(join::driverCall);
        join.release(false);
        // the first thread's records, joined, but its last: CUPTI has shown none of its driver calls after its end yet
        assertThat(written).hasSize(99).allSatisfy(c -> {
            assertThat(c.thread()).isEqualTo(9_501);
            assertThat(c.args()).containsEntry("cupti_correlation", c.correlationId());
        });
        assertThat(join.waitingOnCupti(HOST0 + 2_000_000)).isFalse();
        assertThat(join.waitingOnCupti(HOST0 + 2_000_000 + CorrelationJoin.FLUSH_WAITING_AFTER_NS)).isTrue();

        secondsBuffer.subList(1, 100).forEach(join::driverCall);
        join.release(false);
        assertThat(written).hasSize(198);   // each thread's last waits for a driver call after its end
        join.handedOverThrough(HOST0 + 2_100_000);
        join.release(false);
        assertThat(written).hasSize(200)
                .allSatisfy(c -> assertThat(c.args()).containsEntry("cupti_correlation", c.correlationId()));
        assertThat(join.unjoined()).isZero();
    }

    /** Should a CUPTI version report kernel thread ids instead, the threads are paired by those. */
    @Test
    void aThreadIsPairedByItsLinuxThreadIdWhereCuptiReportsThat() {
        OsThreadIds.note(9_201, 0xdead_0000L, 400_001);
        OsThreadIds.note(9_202, 0xbeef_0000L, 400_002);
        List<ApiCall> written = twoThreadsTheFirstsFirstDriverCallMissing(9_201, 9_202, 400_001, 400_002);

        assertThat(written).filteredOn(c -> c.correlationId() != 1)
                .allSatisfy(c -> assertThat(c.args()).containsEntry("cupti_correlation", c.correlationId()));
    }

    /**
     * Without the threads' ids, one match alone does not pair a thread: the first launch takes the other thread's
     * driver call (the only one inside its span), and that costs two launches, not all of the first thread's.
     */
    @Test
    void withoutIdsOneLoneMatchDoesNotPairAThread() {
        List<ApiCall> written = twoThreadsTheFirstsFirstDriverCallMissing(9_301, 9_302, 300_001, 300_002);

        assertThat(written).filteredOn(c -> c.correlationId() > 2)
                .allSatisfy(c -> assertThat(c.args()).containsEntry("cupti_correlation", c.correlationId()));
    }

    /**
     * Paired by timing with a thread whose driver calls it stops overlapping (its first four launches each held only
     * that thread's call, its own unreported), a thread gives the pairing up after {@link CorrelationJoin#GUESS_MISSES}
     * misses in a row and is paired again with its own calls.
     */
    @Test
    void aPairingByTimingThatStopsMatchingIsGivenUp() {
        long thread = 9_401;
        List<ApiCall> written = new ArrayList<>();
        CorrelationJoin join = anchoredJoin(written);
        List<ApiCall> driverCalls = new ArrayList<>();
        int launches = 60;
        for (int k = 0; k < launches; k++) {
            long t = HOST0 + k * 20_000L;
            join.api(CallRecords.of(new ApiCall("cuLaunchKernel", thread, 0, t, t + 6_000, 1_000 + k, 0,
                    Map.of("kind", "launch"), ClockDomain.HOST_MONOTONIC), CallKind.LAUNCH));
            if (k < CorrelationJoin.GUESS_AGREEMENT) {   // an unrecorded thread's call, alone in the launch's span
                driverCalls.add(new ApiCall("cuLaunchKernel", 500_002, 0, t + 1_000 + OFFSET, t + 4_000 + OFFSET,
                        5_000 + k, 0, Map.of(), ClockDomain.CUPTI));
            } else {
                driverCalls.add(new ApiCall("cuLaunchKernel", 500_001, 0, t + 1_000 + OFFSET, t + 4_000 + OFFSET,
                        1_000 + k, 0, Map.of(), ClockDomain.CUPTI));
                driverCalls.add(new ApiCall("cuLaunchKernel", 500_002, 0, t + 12_000 + OFFSET, t + 15_000 + OFFSET,
                        5_000 + k, 0, Map.of(), ClockDomain.CUPTI));
            }
        }
        driverCalls.forEach(join::driverCall);
        join.release(true);

        int regained = CorrelationJoin.GUESS_AGREEMENT + CorrelationJoin.GUESS_MISSES;
        assertThat(join.unjoined()).isEqualTo(CorrelationJoin.GUESS_MISSES);
        assertThat(written).filteredOn(c -> c.correlationId() >= 1_000 + regained).hasSize(launches - regained)
                .allSatisfy(c -> assertThat(c.args()).containsEntry("cupti_correlation", c.correlationId()));
    }

    /**
     * Two threads launching 7 us apart, 50 launches each; CUPTI reports the first by {@code firstCuptiId} and the second
     * by {@code secondCuptiId}, and misses the first thread's first driver call. A launch's correlation equals its
     * driver call's.
     */
    private List<ApiCall> twoThreadsTheFirstsFirstDriverCallMissing(long first, long second, long firstCuptiId,
            long secondCuptiId) {
        List<ApiCall> written = new ArrayList<>();
        CorrelationJoin join = anchoredJoin(written);
        List<ApiCall> driverCalls = new ArrayList<>();
        for (int k = 0; k < 50; k++) {
            long t = HOST0 + k * 20_000;
            join.api(CallRecords.of(new ApiCall("cuLaunchKernel", first, 0, t, t + 6_000, 1 + 2L * k, 0,
                    Map.of("kind", "launch"), ClockDomain.HOST_MONOTONIC), CallKind.LAUNCH));
            join.api(CallRecords.of(new ApiCall("cuLaunchKernel", second, 0, t + 3_000, t + 9_000, 2 + 2L * k, 0,
                    Map.of("kind", "launch"), ClockDomain.HOST_MONOTONIC), CallKind.LAUNCH));
            if (k > 0) {
                driverCalls.add(new ApiCall("cuLaunchKernel", firstCuptiId, 0, t + 1_000 + OFFSET, t + 4_000 + OFFSET,
                        1 + 2L * k, 0, Map.of(), ClockDomain.CUPTI));
            }
            driverCalls.add(new ApiCall("cuLaunchKernel", secondCuptiId, 0, t + 4_000 + OFFSET, t + 7_000 + OFFSET,
                    2 + 2L * k, 0, Map.of(), ClockDomain.CUPTI));
        }
        driverCalls.forEach(join::driverCall);
        join.release(true);
        return written;
    }

    @Test
    void aLaunchMadeWhileCuptiRanThatNoDriverCallMatchesIsCountedOnceCuptiStopped() {
        List<ApiCall> written = new ArrayList<>();
        CorrelationJoin join = anchoredJoin(written);
        join.api(launch(HOST0 + 10_000, 1));
        join.release(false);
        assertThat(written).as("held: CUPTI may still hand over its driver call").isEmpty();

        coverage.unsubscribing(HOST0 + 50_000);
        join.release(false);
        assertThat(written).as("CUPTI's records may still be on their way").isEmpty();

        join.handedOverThrough(HOST0 + 50_000);
        join.release(false);

        assertThat(written).singleElement().satisfies(c -> assertThat(c.args()).doesNotContainKey("cupti_correlation"));
        assertThat(join.unjoined()).isEqualTo(1);
    }

    private static CallRecord launch(long hostStart, long seq) {
        return CallRecords.of(new ApiCall("cuLaunchKernel", 1, 0, hostStart, hostStart + 6_000, seq, 0,
                Map.of("kind", "launch"), ClockDomain.HOST_MONOTONIC), CallKind.LAUNCH);
    }

    /** A join that writes into {@code written}, with CUPTI's clock {@link #OFFSET} ahead of the host's. */
    private CorrelationJoin anchoredJoin(List<ApiCall> written) {
        coverage.subscribing(HOST0);
        CorrelationJoin join = new CorrelationJoin(new Fanout(List.of(new GuardedSink("test", new EventSink() {
            @Override
            public void api(ApiCall call, CallKind kind) {
                written.add(call);
            }
        }))), coverage);
        join.anchor(new ClockAnchor(ClockDomain.CUPTI, HOST0 + OFFSET, ClockDomain.HOST_MONOTONIC, HOST0));
        return join;
    }

    private static ApiCall driverCall(String name, long hostStart, long correlation) {
        return new ApiCall(name, 100_001, 0, hostStart + OFFSET, hostStart + 4_000 + OFFSET, correlation, 0, Map.of(),
                ClockDomain.CUPTI);
    }
}
