package dev.aorta.agent.pipeline;

import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.jsonl.EventJsonlWriter;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonlWriterThreadTest {
    /**
     * The drain thread reuses one record for every call and hands over faster than the lines are written (a ring of
     * 4 slots, so it waits for room over and over): the file is byte for byte what one thread writes directly.
     */
    @Test
    void theLinesAreThoseOneThreadWritesInTheOrderHandedOver() throws Exception {
        ByteArrayOutputStream direct = new ByteArrayOutputStream();
        EventJsonlWriter directWriter = new EventJsonlWriter(direct);
        ByteArrayOutputStream handedOver = new ByteArrayOutputStream();
        JsonlWriterThread writer = new JsonlWriterThread(new EventJsonlWriter(handedOver), "test-jsonl", 4);
        CallRecord reused = new CallRecord();
        for (int i = 0; i < 5_000; i++) {
            long t = 1_000_000L + i * 10_000L;
            reused.reset("cuLaunchKernel", CallKind.LAUNCH, 7, 0x7f00, t, t + 700, i, 0).arg("kind", "launch")
                    .arg("grid_x", i).arg("cupti_correlation", i + 1);
            long window = i % 3 == 0 ? -1 : i / 100;
            writer.call(reused, window);
            reused.writeTo(directWriter, window);
            DeviceActivity kernel = new DeviceActivity(ActivityKind.KERNEL, "k" + (i % 5), 0, 0, 0x7f00, t + 5_000,
                    t + 6_000, i + 1, t + 800, t + 900, new Dim3(i, 1, 1), new Dim3(32, 1, 1), 0, ClockDomain.CUPTI);
            writer.record(kernel);
            directWriter.write(kernel);
            if (i % 500 == 0) {
                ApiCall c = new ApiCall("cuStreamSynchronize", 7, 0x7f00, t, t + 50, i, 0, Map.of("kind", "sync"),
                        ClockDomain.HOST_MONOTONIC);
                writer.api(c, 2);
                directWriter.write(c, 2);
                writer.flush();
            }
        }
        writer.close();
        directWriter.close();

        assertThat(handedOver.toString()).hasLineCount(10_010).isEqualTo(direct.toString());
    }

    /** A write that fails reaches the drain thread (whose sink guard reports it) at a later hand-over; close still ends. */
    @Test
    void aFailedWriteIsThrownAtALaterHandOverAndCloseDoesNotWait() throws Exception {
        OutputStream full = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("No space left on device");
            }
        };
        JsonlWriterThread writer = new JsonlWriterThread(new EventJsonlWriter(full), "test-jsonl-full", 4);
        DeviceActivity kernel = new DeviceActivity(ActivityKind.KERNEL, "k", 0, 0, 1, 10, 20, 1, -1, -1, Dim3.NONE,
                Dim3.NONE, 0, ClockDomain.CUPTI);

        assertThatThrownBy(() -> {
            for (int i = 0; i < 1_000_000; i++) {
                writer.record(kernel);
                writer.flush();
            }
        }).isInstanceOf(IOException.class).hasMessageContaining("No space left on device");
        writer.close();
    }
}
