package dev.aorta.agent.capture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import javax.management.RuntimeMBeanException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The capture windows over JMX, as a JMX client sees them (through the platform MBean server, by name). */
class CaptureControlTest {
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @AfterEach
    void unregister() throws Exception {
        server.unregisterMBean(new ObjectName(CaptureControl.NAME));
        CaptureGate.open();
    }

    @Test
    void aJmxClientOpensAWindow_isRefusedASecond_andClosesIt() throws Exception {
        CaptureWindows windows = new CaptureWindows(CaptureSchedule.ON_DEMAND, BetweenWindows.OFF, new CaptureWindows.Listener() {
            @Override
            public void windowOpened(long index, long startNs, String reason) {
            }

            @Override
            public void windowClosed(long index, long startNs, long endNs, String reason) {
            }

            @Override
            public void deviceActivity(boolean on) {
            }
        }, System.nanoTime(), System::nanoTime, true);
        new CaptureControl(windows, "/tmp/out").register();
        ObjectName name = new ObjectName(CaptureControl.NAME);

        assertThat(server.getAttribute(name, "ActiveWindow")).isEqualTo("none");
        assertThat(server.getAttribute(name, "Output")).isEqualTo("/tmp/out");
        assertThat(server.invoke(name, "capture", new Object[] {0L}, new String[] {"long"}))
                .isEqualTo("capture window 0 opened (JMX until closed)");
        assertThat(CaptureGate.isOpen()).isTrue();
        assertThat((String) server.getAttribute(name, "ActiveWindow")).startsWith("capture window 0: JMX until closed, open for");
        assertThatThrownBy(() -> server.invoke(name, "capture", new Object[] {1000L}, new String[] {"long"}))
                .isInstanceOf(RuntimeMBeanException.class)
                .satisfies(e -> assertThat(e.getCause()).hasMessageStartingWith("capture window 0 is already open (JMX"));
        assertThat(server.invoke(name, "close", new Object[0], new String[0])).isEqualTo("capture window 0 closed");
        assertThat(CaptureGate.isOpen()).isFalse();
    }
}
