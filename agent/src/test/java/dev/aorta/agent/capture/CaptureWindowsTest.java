package dev.aorta.agent.capture;

import dev.aorta.agent.spi.CallKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CaptureWindowsTest {

    /** What the windows told their listener, in order. */
    static final class Recorded implements CaptureWindows.Listener {
        final List<String> events = new ArrayList<>();

        @Override
        public void windowOpened(long index, long startNs, String reason) {
            events.add("open " + index + " at " + startNs);
        }

        @Override
        public void windowClosed(long index, long startNs, long endNs, String reason) {
            events.add("close " + index + " " + startNs + ".." + endNs);
        }

        @Override
        public void deviceActivity(boolean on) {
            events.add(on ? "device on" : "device off");
        }
    }

    private final Recorded listener = new Recorded();

    @AfterEach
    void recordingAgainForOtherTests() {
        CaptureGate.recording = true;
    }

    @Test
    void anIterationScheduleWaitsWarmsUpRecordsAndRepeatsLikeThePyTorchProfilers() {
        // wait=1, warmup=1, active=2, repeat=2: iterations 2-3 and 6-7 are windows 0 and 1
        CaptureWindows w = new CaptureWindows(CaptureSchedule.iterations(1, 1, 2, 2), BetweenWindows.OFF, listener, 0);
        List<Boolean> gate = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            w.marker(CallKind.ITERATION_STEP, 100 * i);
            gate.add(CaptureGate.recording);
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

    @Test
    void betweenWindowsApiKeepsRecordingHostCallsButNotTheDevice() {
        CaptureWindows w = new CaptureWindows(CaptureSchedule.iterations(1, 0, 1, 1), BetweenWindows.API, listener, 0);
        assertThat(CaptureGate.recording).isTrue();
        w.marker(CallKind.ITERATION_BEGIN, 10);
        w.marker(CallKind.ITERATION_END, 15);
        w.marker(CallKind.ITERATION_BEGIN, 20);
        w.marker(CallKind.ITERATION_FINISH, 30);
        assertThat(CaptureGate.recording).isTrue();
        assertThat(listener.events).containsExactly("device off", "device on", "open 0 at 20", "close 0 20..30", "device off");
    }

    @Test
    void aTimeWindowOpensAfterItsDelayAndClosesAtItsDuration() {
        CaptureWindows w = new CaptureWindows(CaptureSchedule.time(1_000, 500), BetweenWindows.OFF, listener, 10_000);
        w.tick(10_900);
        assertThat(CaptureGate.recording).isFalse();
        w.tick(11_020);
        assertThat(CaptureGate.recording).isTrue();
        w.tick(11_400);
        w.tick(11_600);
        assertThat(CaptureGate.recording).isFalse();
        w.tick(20_000);
        assertThat(listener.events).containsExactly("device off", "device on", "open 0 at 11020", "close 0 11020..11500", "device off");
    }

    @Test
    void aWindowRequestedWhileAnotherIsOpenIsRefusedNamingTheOpenOne() {
        CaptureWindows w = new CaptureWindows(CaptureSchedule.ON_DEMAND, BetweenWindows.OFF, listener, 0);
        assertThat(w.open("aorta capture", 5_000_000_000L, 0)).isEqualTo("capture window 0 opened (aorta capture for 5.0s)");
        assertThatThrownBy(() -> w.open("JMX", 0, 2_000_000_000L))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("capture window 0 is already open (aorta capture for 5.0s, open for 2.0s, closes in 3.0s);"
                        + " wait for it to close or close it first");
        w.tick(5_000_000_001L);
        assertThat(w.activeWindow(5_000_000_001L)).isNull();
        assertThat(w.open("JMX", 0, 6_000_000_000L)).isEqualTo("capture window 1 opened (JMX until closed)");
        assertThat(w.close(7_000_000_000L)).isEqualTo("capture window 1 closed");
        assertThat(w.close(7_000_000_000L)).isEqualTo("no capture window is open");
    }

    @Test
    void afterStopNothingIsRecordedAndNoWindowOpens() {
        CaptureWindows w = new CaptureWindows(CaptureSchedule.ALWAYS, BetweenWindows.API, listener, 0);
        assertThat(CaptureGate.recording).isTrue();
        w.stop(5);
        assertThat(CaptureGate.recording).isFalse();
        assertThatThrownBy(() -> w.open("aorta capture", 0, 6)).hasMessageContaining("detached");
    }
}
