package dev.aorta.gpu.cuda;

import dev.aorta.gpu.RequiresGpu;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which driver calls the device's {@link EnqueueCounter} counts: those that put work on a stream, one each. */
@RequiresGpu
class EnqueueCounterGpuTest {

    @Test
    void copiesAndMemsetsCountOneEachAndEventsNone() {
        try (CudaDevice device = CudaDevice.open(0); Stream s = device.createStream(0, true);
             Event e = device.createEvent(false);
             DeviceBuffer a = device.allocate(1 << 20); DeviceBuffer b = device.allocate(1 << 20)) {
            long before = device.enqueues().total();
            a.fill32Async(7, 1 << 18, s);
            b.copyFromAsync(a, 1 << 20, s);
            e.record(s);
            s.waitFor(e);
            assertThat(device.enqueues().total() - before).isEqualTo(2);
            s.synchronize();
        }
    }

    @Test
    void aGraphLaunchIsOneCallHoweverManyNodesItReplays() {
        try (CudaDevice device = CudaDevice.open(0); Stream s = device.createStream(0, true);
             DeviceBuffer a = device.allocate(1 << 20)) {
            s.beginCapture();
            for (int i = 0; i < 3; i++) {
                a.fill32Async(i, 1 << 18, s);
            }
            try (CudaGraph graph = s.endCapture()) {
                long before = device.enqueues().total();
                graph.launch(s);
                assertThat(device.enqueues().total() - before).isEqualTo(1);
                s.synchronize();
            }
        }
    }
}
