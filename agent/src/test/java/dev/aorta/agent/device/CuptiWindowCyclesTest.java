package dev.aorta.agent.device;

import dev.aorta.agent.capture.BetweenWindows;
import dev.aorta.agent.capture.CaptureSchedule;
import dev.aorta.agent.capture.CaptureWindows;
import dev.aorta.gpu.cupti.CuptiSubscriptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** CUPTI runs only inside capture windows: opening and closing 50 windows leaves no subscription or thread behind. */
class CuptiWindowCyclesTest {

    @Test
    void fiftyWindowsOpenAndCloseWithoutGrowingSubscriptionsThreadsOrAnchorsPerWindow() {
        CuptiActivitySourceTest.Received received = new CuptiActivitySourceTest.Received();
        int before = CuptiSubscriptions.held();
        DeviceActivitySource source = CuptiActivitySource.start(0, true, received);
        CaptureWindows windows = new CaptureWindows(CaptureSchedule.ON_DEMAND, BetweenWindows.OFF,
                new CaptureWindows.Listener() {
                    @Override
                    public void windowOpened(long index, long startNs, String reason) {
                    }

                    @Override
                    public void windowClosed(long index, long startNs, long endNs, String reason) {
                    }

                    @Override
                    public void deviceActivity(boolean on) {
                        if (on) {
                            source.resume();
                        } else {
                            source.pause();
                        }
                    }
                }, System.nanoTime(), System::nanoTime, true);
        assertThat(CuptiSubscriptions.held()).as("paused until the first window").isEqualTo(before);
        int threads = Thread.activeCount();
        for (int i = 0; i < 50; i++) {
            windows.open("test", 0);
            assertThat(CuptiSubscriptions.held()).isEqualTo(before + 1);
            windows.close();
            assertThat(CuptiSubscriptions.held()).isEqualTo(before);
        }
        assertThat(Thread.activeCount()).isLessThanOrEqualTo(threads);
        // one CUPTI anchor at start and one per window, so each window's records have an anchor of their own
        assertThat(received.anchors).hasSize(51);
        // and each subscription's edges for the join: marked as CUPTI switches, the stop once its records are in
        assertThat(received.subscriptions).hasSize(51);
        assertThat(received.unsubscriptions).hasSize(51).isEqualTo(received.stops);
        for (int i = 0; i < 51; i++) {
            assertThat(received.subscriptions.get(i)).isLessThanOrEqualTo(received.anchors.get(i).toNs());
            assertThat(received.unsubscriptions.get(i)).isGreaterThanOrEqualTo(received.anchors.get(i).toNs());
        }
        source.stop();
        assertThat(CuptiSubscriptions.held()).isEqualTo(before);
    }
}
