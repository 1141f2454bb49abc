package dev.aorta.agent.capture;

import dev.aorta.agent.recorder.FakeTsc;
import dev.aorta.agent.recorder.TickTimeline;
import dev.aorta.agent.spi.CallKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CaptureWindowsTest {

    /** What the windows told their listener, in order. */
    static final class Recorded implements CaptureWindows.Listener {
        final List<String> events = new ArrayList<>();
        final Map<Long, long[]> settled = new HashMap<>();

        @Override
        public void windowOpened(long index, long startNs, String reason) {
            events.add("open " + index + " at " + startNs);
        }

        @Override
        public void windowClosed(long index, long startNs, long endNs, String reason) {
            events.add("close " + index + " " + startNs + ".." + endNs);
        }

        @Override
        public void windowSettled(long index, long startNs, long endNs) {
            settled.put(index, new long[]{startNs, endNs});
        }

        @Override
        public void deviceActivity(boolean on) {
            events.add(on ? "device on" : "device off");
        }
    }

    private static final long SECOND = 1_000_000_000L;
    private final Recorded listener = new Recorded();
    /** The windows' clock, set by each test. */
    private final AtomicLong now = new AtomicLong();

    @AfterEach
    void recordingAgainForOtherTests() {
        CaptureGate.open();
    }

    private CaptureWindows windows(CaptureSchedule schedule, BetweenWindows between, long agentStartNs) {
        return new CaptureWindows(schedule, between, listener, agentStartNs, now::get);
    }

    @Test
    void anIterationScheduleWaitsWarmsUpRecordsAndRepeatsLikeThePyTorchProfilers() {
        // wait=1, warmup=1, active=2, repeat=2: iterations 2-3 and 6-7 are windows 0 and 1
        CaptureWindows w = windows(CaptureSchedule.iterations(1, 1, 2, 2), BetweenWindows.OFF, 0);
        List<Boolean> gate = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            now.set(100 * i);
            w.marker(CallKind.ITERATION_STEP);
            gate.add(CaptureGate.isOpen());
        }
        assertThat(gate).containsExactly(false, false, true, true, false, false, true, true, false, false);
        assertThat(listener.events).containsExactly(
                "device off",  // until the schedule needs it
                "device on",  // warm-up of iteration 1
                "open 0 at 200", "close 0 200..400", "device off",
                "device on", "open 1 at 600", "close 1 600..800", "device off");
        assertThat(w.windowAt(250)).isZero();
        assertThat(w.windowAt(650)).isEqualTo(1);
        assertThat(w.windowAt(450)).isEqualTo(-1);
    }

    /** Weaves and takes out by telling the listener's log, with what the gate said at that moment. */
    private RecordingAdvice advice() {
        boolean[] state = {true};
        return woven -> {
            if (woven != state[0]) {
                state[0] = woven;
                listener.events.add((woven ? "weave" : "unweave") + " (gate " + (CaptureGate.isOpen() ? "open" : "shut") + ")");
            }
        };
    }

    @Test
    void betweenWindowsOff_theAdviceIsWovenBeforeEachWarmUpAndTakenOutAfterEachWindow_markersDriveIt() {
        CaptureWindows w = windows(CaptureSchedule.iterations(1, 1, 2, 2), BetweenWindows.OFF, 0);
        assertThat(w.unweavesBetweenWindows()).isTrue();
        w.weaveOnlyInWindows(advice(), SECOND);
        for (int i = 0; i < 10; i++) {
            now.set(SECOND * i);  // iterations a second apart: windows far enough apart to take the advice out
            w.marker(CallKind.ITERATION_STEP);
        }
        assertThat(listener.events).containsExactly(
                "device off", "unweave (gate shut)",  // handed over in the wait: out at once
                "weave (gate shut)", "device on",  // warm-up of iteration 1: woven before CUPTI starts
                "open 0 at " + 2 * SECOND, "close 0 " + 2 * SECOND + ".." + 4 * SECOND, "device off",
                "unweave (gate shut)",
                "weave (gate shut)", "device on", "open 1 at " + 6 * SECOND,
                "close 1 " + 6 * SECOND + ".." + 8 * SECOND, "device off", "unweave (gate shut)");
    }

    @Test
    void betweenWindowsOff_windowsUnderASecondApartKeepTheAdviceWovenUntilASecondPassesWithoutOne() {
        CaptureWindows w = windows(CaptureSchedule.ON_DEMAND, BetweenWindows.OFF, 0);
        w.weaveOnlyInWindows(advice(), SECOND);
        openAndClose(w, 2 * SECOND, 3 * SECOND);  // the first window: out after it
        openAndClose(w, 3 * SECOND + 200_000_000L, 4 * SECOND);  // 0.2 s after the last: it stays, gated
        openAndClose(w, 5 * SECOND + 500_000_000L, 6 * SECOND);  // 1.5 s: out again
        assertThat(listener.events).filteredOn(e -> e.contains("weave")).containsExactly("unweave (gate shut)",
                "weave (gate shut)", "unweave (gate shut)", "weave (gate shut)", "unweave (gate shut)");
        // woven through the short stretch: window 2 opens without a weave
        assertThat(listener.events.subList(listener.events.indexOf("close 1 " + (3 * SECOND + 200_000_000L) + ".."
                + 4 * SECOND), listener.events.size())).containsExactly("close 1 " + (3 * SECOND + 200_000_000L) + ".."
                + 4 * SECOND, "device off", "device on", "open 2 at " + (5 * SECOND + 500_000_000L),
                "close 2 " + (5 * SECOND + 500_000_000L) + ".." + 6 * SECOND, "device off", "unweave (gate shut)");
    }

    @Test
    void betweenWindowsOff_onDemandWindowsAreWovenBeforeTheGateOpens_andStopLeavesTheAdviceAsItIs() {
        CaptureWindows w = windows(CaptureSchedule.ON_DEMAND, BetweenWindows.OFF, 0);
        w.weaveOnlyInWindows(advice(), SECOND);
        openAndClose(w, 5 * SECOND, 6 * SECOND);
        now.set(9 * SECOND);
        w.open("aorta capture", 0);
        w.stop();
        assertThat(listener.events).containsExactly("device off", "unweave (gate shut)",
                "weave (gate shut)", "device on", "open 0 at " + 5 * SECOND, "close 0 " + 5 * SECOND + ".." + 6 * SECOND,
                "device off", "unweave (gate shut)",
                "weave (gate shut)", "device on", "open 1 at " + 9 * SECOND, "close 1 " + 9 * SECOND + ".." + 9 * SECOND,
                "device off");
        // at detach (not at exit) it is taken out for good
        assertThat(w.takeAdviceOut()).isTrue();
        assertThat(listener.events).last().isEqualTo("unweave (gate shut)");
        assertThat(windows(CaptureSchedule.ON_DEMAND, BetweenWindows.GATED, 0).takeAdviceOut()).isFalse();
    }

    @Test
    void aWindowLastsItsDurationFromWhenItsGateOpened_soWeavingTheAdviceDoesNotShortenIt() {
        CaptureWindows w = windows(CaptureSchedule.ON_DEMAND, BetweenWindows.OFF, 0);
        boolean[] state = {false};
        w.weaveOnlyInWindows(woven -> {  // weaving takes 300 ns of the clock
            if (woven && !state[0]) {
                now.addAndGet(300);
            }
            state[0] = woven;
        }, SECOND);
        w.open("aorta capture", 1_000);
        assertThat(listener.events).contains("open 0 at 300");
        tick(w, 1_250);
        assertThat(w.activeWindow()).isNotNull();
        tick(w, 1_300);
        assertThat(w.activeWindow()).isNull();
        assertThat(listener.events).contains("close 0 300..1300");
    }

    @Test
    void theAdviceStaysWovenWhenSomethingIsRecordedBetweenWindowsOrItIsGatedOrThereAreNoWindows() {
        assertThat(windows(CaptureSchedule.ON_DEMAND, BetweenWindows.API, 0).unweavesBetweenWindows()).isFalse();
        assertThat(windows(CaptureSchedule.ON_DEMAND, BetweenWindows.GATED, 0).unweavesBetweenWindows()).isFalse();
        CaptureWindows always = windows(CaptureSchedule.ALWAYS, BetweenWindows.OFF, 0);
        assertThat(always.unweavesBetweenWindows()).isFalse();
        assertThatThrownBy(() -> always.weaveOnlyInWindows(advice(), SECOND)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("stays woven");
    }

    @Test
    void betweenWindowsGatedShutsTheGateLikeOff() {
        CaptureWindows w = windows(CaptureSchedule.ON_DEMAND, BetweenWindows.GATED, 0);
        assertThat(CaptureGate.isOpen()).isFalse();
        w.open("JMX", 0);
        assertThat(CaptureGate.isOpen()).isTrue();
        w.close();
        assertThat(CaptureGate.isOpen()).isFalse();
    }

    @Test
    void betweenWindowsApiKeepsRecordingHostCallsButNotTheDevice() {
        CaptureWindows w = windows(CaptureSchedule.iterations(1, 0, 1, 1), BetweenWindows.API, 0);
        assertThat(CaptureGate.isOpen()).isTrue();
        for (var marker : List.of(Map.entry(10L, CallKind.ITERATION_BEGIN), Map.entry(15L, CallKind.ITERATION_END),
                Map.entry(20L, CallKind.ITERATION_BEGIN), Map.entry(30L, CallKind.ITERATION_FINISH))) {
            now.set(marker.getKey());
            w.marker(marker.getValue());
        }
        assertThat(CaptureGate.isOpen()).isTrue();
        assertThat(listener.events).containsExactly("device off", "device on", "open 0 at 20", "close 0 20..30", "device off");
    }

    @Test
    void aTimeWindowOpensAfterItsDelayAndClosesAtItsDuration_atTheDrainThreadsTicks() {
        CaptureWindows w = windows(CaptureSchedule.time(1_000, 500), BetweenWindows.OFF, 10_000);
        tick(w, 10_900);
        assertThat(CaptureGate.isOpen()).isFalse();
        tick(w, 11_020);
        assertThat(CaptureGate.isOpen()).isTrue();
        tick(w, 11_400);
        tick(w, 11_600);
        assertThat(CaptureGate.isOpen()).isFalse();
        tick(w, 20_000);
        // the deadline was 11 500; the gate shut, and calls stopped being kept, at the tick after it
        assertThat(listener.events).containsExactly("device off", "device on", "open 0 at 11020", "close 0 11020..11600", "device off");
    }

    /** An on-demand window from {@code openNs} to {@code closeNs} on the windows' clock. */
    private void openAndClose(CaptureWindows w, long openNs, long closeNs) {
        now.set(openNs);
        w.open("aorta capture", 0);
        now.set(closeNs);
        w.close();
    }

    private void tick(CaptureWindows w, long ns) {
        now.set(ns);
        w.tick();
    }

    @Test
    void aWindowRequestedWhileAnotherIsOpenIsRefusedNamingTheOpenOne() {
        CaptureWindows w = windows(CaptureSchedule.ON_DEMAND, BetweenWindows.OFF, 0);
        assertThat(w.open("aorta capture", 5_000_000_000L)).isEqualTo("capture window 0 opened (aorta capture for 5.0s)");
        now.set(2_000_000_000L);
        assertThatThrownBy(() -> w.open("JMX", 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("capture window 0 is already open (aorta capture for 5.0s, open for 2.0s, closes in 3.0s);"
                        + " wait for it to close or close it first");
        tick(w, 5_000_000_001L);
        assertThat(w.activeWindow()).isNull();
        now.set(6_000_000_000L);
        assertThat(w.open("JMX", 0)).isEqualTo("capture window 1 opened (JMX until closed)");
        now.set(7_000_000_000L);
        assertThat(w.close()).isEqualTo("capture window 1 closed");
        assertThat(w.close()).isEqualTo("no capture window is open");
    }

    @Test
    void afterStopNothingIsRecordedAndNoWindowOpens() {
        CaptureWindows w = windows(CaptureSchedule.ALWAYS, BetweenWindows.API, 0);
        assertThat(CaptureGate.isOpen()).isTrue();
        w.stop();
        assertThat(CaptureGate.isOpen()).isFalse();
        assertThatThrownBy(() -> w.open("aorta capture", 0)).hasMessageContaining("detached");
    }

    @Test
    void aWindowsStartIsReadBeforeTheGateOpensAndItsEndAfterItShuts() {
        Map<Long, Boolean> gateOpenAtRead = new HashMap<>();
        CaptureWindows w = new CaptureWindows(CaptureSchedule.ON_DEMAND, BetweenWindows.OFF, listener, 0, () -> {
            long t = now.incrementAndGet();
            gateOpenAtRead.put(t, CaptureGate.isOpen());
            return t;
        });
        w.open("test", 0);
        w.close();
        // read 1 is the request's time (for its deadline); 2 and 3 are the window's edges
        assertThat(listener.events).containsExactly("device off", "device on", "open 0 at 2", "close 0 2..3", "device off");
        assertThat(gateOpenAtRead).containsEntry(2L, false).containsEntry(3L, false);
    }

    /**
     * The race behind a flaky end-to-end test: an application thread saw the gate open, the window closed while it
     * read its clock, and its call was kept with a start after the window's end, so it was written with no window.
     */
    @Test
    void aCallThatSawTheGateOpenButReadItsClockAfterTheWindowClosedIsDropped() throws Exception {
        CaptureWindows w = windows(CaptureSchedule.ON_DEMAND, BetweenWindows.OFF, 0);
        now.set(100);
        w.open("test", 0);
        CountDownLatch sawOpen = new CountDownLatch(1);
        CountDownLatch windowClosed = new CountDownLatch(1);
        CompletableFuture<Long> start = callStartingWhile(sawOpen, windowClosed);
        assertThat(sawOpen.await(10, TimeUnit.SECONDS)).isTrue();
        now.set(200);
        w.close();
        now.set(300);
        windowClosed.countDown();
        assertThat(listener.events).contains("close 0 100..200");
        assertThat(start.get(10, TimeUnit.SECONDS)).as("read at 300, after the window's end").isEqualTo(CaptureGate.SHUT);
    }

    @Test
    void aCallThatSawOneWindowOpenAndReadItsClockInTheNextIsDropped() throws Exception {
        CaptureWindows w = windows(CaptureSchedule.ON_DEMAND, BetweenWindows.OFF, 0);
        now.set(100);
        w.open("test", 0);
        CountDownLatch sawOpen = new CountDownLatch(1);
        CountDownLatch nextWindowOpen = new CountDownLatch(1);
        CompletableFuture<Long> start = callStartingWhile(sawOpen, nextWindowOpen);
        assertThat(sawOpen.await(10, TimeUnit.SECONDS)).isTrue();
        now.set(200);
        w.close();
        now.set(300);
        w.open("test", 0);
        now.set(250);  // a reading between the windows (clocks do not go back; this one stands for a late read)
        nextWindowOpen.countDown();
        assertThat(start.get(10, TimeUnit.SECONDS)).as("the gate it saw open was window 0's").isEqualTo(CaptureGate.SHUT);
    }

    /** A call on another thread that looks at the gate, signals {@code sawGate} and reads the clock after {@code then}. */
    private CompletableFuture<Long> callStartingWhile(CountDownLatch sawGate, CountDownLatch then) {
        LongSupplier slowClock = () -> {
            sawGate.countDown();
            try {
                assertThat(then.await(10, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return now.get();
        };
        CompletableFuture<Long> start = new CompletableFuture<>();
        Thread call = new Thread(() -> start.complete(CaptureGate.timeIfOpen(slowClock)), "application");
        call.start();
        return start;
    }

    /**
     * With TSC edges, 300 short windows under heavy load, each holding one call read right after it opened and
     * closed right after the call, with calls just before and after it: once the drain's anchor settles them, the
     * call converts within the window's edges and the others outside, and the marker's edges are those.
     */
    @Test
    void aCallInsideATscWindowConvertsInsideItsEdges() {
        FakeTsc host = new FakeTsc(11, 0.10);
        TickTimeline timeline = new TickTimeline(host::ticks, host::nanoTime);
        CaptureWindows w = new CaptureWindows(CaptureSchedule.ON_DEMAND, BetweenWindows.OFF, listener, 0,
                host::nanoTime, host::ticks, false);
        for (long i = 0; i < 300; i++) {
            host.run(100_000);
            long before = host.ticks();
            w.open("test", 0);
            long inside = host.ticks();
            w.close();
            long after = host.ticks();
            w.settle(timeline::toNanos, timeline.settledThrough());
            assertThat(listener.settled).as("edges newer than the newest anchor wait").doesNotContainKey(i);

            host.run(1_000_000);
            timeline.anchor(false);
            w.settle(timeline::toNanos, timeline.settledThrough());
            long insideNs = timeline.toNanos(inside);
            assertThat(w.windowAt(insideNs)).isEqualTo(i);
            assertThat(w.windowAt(timeline.toNanos(before))).isEqualTo(-1);
            assertThat(w.windowAt(timeline.toNanos(after))).isEqualTo(-1);
            assertThat(listener.settled.get(i)[0]).isLessThanOrEqualTo(insideNs);
            assertThat(listener.settled.get(i)[1]).isGreaterThanOrEqualTo(insideNs);
        }
    }
}
