package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.MemoryStats;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;
import dev.aorta.model.check.CheckRow;
import dev.aorta.model.check.OpsCheck;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.PrintStream;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Every op on the GPU against the float64 reference, small shapes; skipped, with the reason, without a GPU. */
class OpsGpuTest {

    @Test
    void everyOutputAndGradientMatchesTheFloat64Reference() {
        CudaDevice device = deviceOrSkip();
        try (device; Stream s = device.createStream(0, true); OpContext ctx = new OpContext(device, s)) {
            long before = device.memoryStats().allocatedBytes();
            List<CheckRow> rows = new OpsCheck(ctx, s, 5, null).runAll(false);
            OpsCheck.print(rows, new PrintStream(System.out));
            assertThat(rows).hasSizeGreaterThan(40).allMatch(CheckRow::passed);
            // every case gave its tensors back
            assertThat(device.memoryStats().allocatedBytes()).isEqualTo(before);
        }
    }

    @Test
    void thePeaksLiveBytesAreCountedForTheOpsThatAskedForThem() {
        CudaDevice device = deviceOrSkip();
        try (device) {
            device.allocator().resetPeaks();
            Tensor a = Tensor.empty(device, "peakprobe-a", "x", DType.FP32, 1 << 20);
            Tensor b = Tensor.empty(device, "peakprobe-b", "y", DType.FP32, 1 << 18);
            b.close(); // after the peak: the peak's composition stays
            Tensor c = Tensor.empty(device, "peakprobe-b", "z", DType.FP32, 1 << 10);
            MemoryStats m = device.memoryStats();
            assertThat(m.atPeakByOwner()).containsEntry("peakprobe-a", 4L << 20).containsEntry("peakprobe-b", 1L << 20);
            a.close();
            c.close();
        }
    }

    /** Device 0, or the test aborted (a skip) with why there is none. */
    private static CudaDevice deviceOrSkip() {
        try {
            return CudaDevice.open(0);
        } catch (RuntimeException | LinkageError e) {
            return Assumptions.abort("no GPU here: " + e.getMessage());
        }
    }
}
