package dev.aorta.agent.jfr;

import dev.aorta.agent.pipeline.CallRecord;
import dev.aorta.agent.spi.CallKind;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class JfrSinkTest {
    /** The drain thread hands calls over as reused records; a running recording still gets each as its event. */
    @Test
    void aDecodedLaunchBecomesAKernelLaunchEventOfARunningRecording(@TempDir Path dir) throws Exception {
        JfrSink sink = new JfrSink(null);
        Path file = dir.resolve("r.jfr");
        try (Recording r = new Recording()) {
            r.enable(KernelLaunchEvent.class);
            r.start();
            sink.call(launch(1_000));
            r.stop();
            r.dump(file);
        }
        sink.call(launch(2_000));   // no recording: nothing to take it, nothing made

        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        assertThat(events).filteredOn(e -> e.getEventType().getName().equals("aorta.KernelLaunch"))
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.getString("grid")).isEqualTo("100x1x1");
                    assertThat(e.getString("block")).isEqualTo("128x1x1");
                    assertThat(e.getLong("sharedMemBytes")).isEqualTo(256);
                });
    }

    private static CallRecord launch(long start) {
        return new CallRecord().reset("cuLaunchKernel", CallKind.LAUNCH, 1, 0x7f00, start, start + 700, 1, 0)
                .arg("kind", "launch").arg("grid_x", 100).arg("grid_y", 1).arg("grid_z", 1)
                .arg("block_x", 128).arg("block_y", 1).arg("block_z", 1).arg("shared_mem", 256);
    }
}
