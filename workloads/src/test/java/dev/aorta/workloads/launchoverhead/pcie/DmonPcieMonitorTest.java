package dev.aorta.workloads.launchoverhead.pcie;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The nvidia-smi fallback against a fake dmon that prints two samples and then waits to be stopped. */
class DmonPcieMonitorTest {
    @Test
    void samplesPrintedWhileThePatternRunsAreAveragedAndTheProcessIsStopped() throws Exception {
        DmonPcieMonitor monitor = new DmonPcieMonitor(List.of("bash", "-c",
                "printf '# gpu rxpci txpci\\n# Idx MB/s MB/s\\n    0      5      7\\n    0      9      1\\n'; exec sleep 30"),
                "fake dmon");
        monitor.start();
        Thread.sleep(1_000);
        long t0 = System.nanoTime();
        PcieStats stats = monitor.stop();
        assertThat((System.nanoTime() - t0) / 1e9).isLessThan(5);
        assertThat(stats).isEqualTo(new PcieStats("fake dmon", null, 2, 7, 9, 4, 7));
    }

    @Test
    void aMissingNvidiaSmiIsSaidNotHidden() {
        DmonPcieMonitor monitor = new DmonPcieMonitor(List.of("/nonexistent/nvidia-smi", "dmon"), "dmon");
        monitor.start();
        assertThat(monitor.stop().unavailableReason()).startsWith("dmon: cannot start /nonexistent/nvidia-smi");
    }
}
