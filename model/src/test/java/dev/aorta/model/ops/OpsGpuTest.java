package dev.aorta.model.ops;

import dev.aorta.gpu.blas.Cublas;
import dev.aorta.gpu.blas.CublasLt;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.MemoryStats;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;
import dev.aorta.model.check.CheckRow;
import dev.aorta.model.check.OpsCheck;
import org.junit.jupiter.api.Test;

import java.io.PrintStream;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Every op on the GPU against the float64 reference, small shapes; skipped, with the reason, without a GPU. */
class OpsGpuTest {

    @Test
    void everyOutputAndGradientMatchesTheFloat64Reference() {
        CudaDevice device = GpuDevice.openOrSkip();
        try (device; Stream s = device.createStream(0, true); OpContext ctx = new OpContext(device, s)) {
            long before = tensorBytes(device);
            List<CheckRow> rows = new OpsCheck(ctx, s, 5, null).runAll(false);
            OpsCheck.print(rows, new PrintStream(System.out));
            assertThat(rows).hasSizeGreaterThan(40).allMatch(CheckRow::passed);
            // every case gave its tensors back (the context's cuBLAS and cuBLASLt keep their workspaces)
            assertThat(tensorBytes(device)).isEqualTo(before);
        }
    }

    @Test
    void thePeaksLiveBytesAreCountedForTheOpsThatAskedForThem() {
        CudaDevice device = GpuDevice.openOrSkip();
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

    /**
     * The input-only backward passes (torch.autograd.grad with respect to the input alone) give the full passes'
     * dx bit for bit and leave every parameter gradient as it was; paramGrads then adds what the full pass added.
     */
    @Test
    void inputOnlyBackwardGivesTheSameDxAndParamGradsTheRest() {
        CudaDevice device = GpuDevice.openOrSkip();
        try (device; Stream s = device.createStream(0, true); OpContext ctx = new OpContext(device, s);
             Linear fc = new Linear(ctx, "fc", 24, 40, true, 7);
             LayerNorm norm = new LayerNorm(ctx, "ln", 24, 1e-5f)) {
            int rows = 9;
            float[] xs = new float[rows * 24];
            float[] gs = new float[rows * 40];
            for (int i = 0; i < xs.length; i++) {
                xs[i] = (float) Math.sin(0.37 * i);
            }
            for (int i = 0; i < gs.length; i++) {
                gs[i] = (float) Math.cos(0.11 * i);
            }
            try (Tensor x = Tensor.of(device, "x", DType.FP32, xs, rows, 24);
                 Tensor pre = ctx.empty("t", "pre", DType.FP32, rows, 40);
                 Tensor y = ctx.empty("t", "y", DType.FP32, rows, 40);
                 Tensor dx = ctx.empty("t", "dx", DType.FP32, rows, 24);
                 Tensor dxInput = ctx.empty("t", "dx input only", DType.FP32, rows, 24);
                 Tensor mean = ctx.empty("t", "mean", DType.FP32, rows);
                 Tensor rstd = ctx.empty("t", "rstd", DType.FP32, rows)) {
                norm.zeroGrad(s);
                for (boolean gelu : new boolean[] {false, true}) {
                    fc.zeroGrad(s);
                    fc.forwardGelu(x, pre, y, s);
                    try (Tensor dy = Tensor.of(device, "dy", DType.FP32, gs, rows, 40);
                         Tensor dyInput = Tensor.of(device, "dy", DType.FP32, gs, rows, 40)) {
                        if (gelu) {
                            fc.backwardGelu(x, pre, dy, dx, s);
                        } else {
                            fc.backward(x, dy, dx, s);
                        }
                        float[] dw = fc.weight().grad().toFloats();
                        float[] db = fc.bias().grad().toFloats();
                        if (gelu) {
                            fc.backwardGeluInput(pre, dyInput, dxInput, s);
                        } else {
                            fc.backwardInput(dyInput, dxInput, s);
                        }
                        assertThat(dxInput.toFloats()).as("linear dx, gelu " + gelu).containsExactly(dx.toFloats());
                        assertThat(dw).as("dW gets gradients in the full pass").isNotEqualTo(new float[dw.length]);
                        assertThat(fc.weight().grad().toFloats()).containsExactly(dw);
                        assertThat(fc.bias().grad().toFloats()).containsExactly(db);
                        fc.paramGrads(x, dyInput, s);
                        assertThat(fc.weight().grad().toFloats()).as("dW, gelu " + gelu).containsExactly(twice(dw));
                        assertThat(fc.bias().grad().toFloats()).as("db, gelu " + gelu).containsExactly(twice(db));
                    }
                }
                norm.forward(x, dxInput, mean, rstd, s);
                norm.backward(x, mean, rstd, x, dx, s);
                float[] dGamma = norm.parameters().get(0).grad().toFloats();
                norm.backwardInput(x, mean, rstd, x, null, dxInput, s);
                assertThat(dxInput.toFloats()).as("layer norm dx").containsExactly(dx.toFloats());
                assertThat(norm.parameters().get(0).grad().toFloats()).containsExactly(dGamma);
                norm.paramGrads(x, mean, rstd, x, s);
                assertThat(norm.parameters().get(0).grad().toFloats()).containsExactly(twice(dGamma));
            }
        }
    }

    /**
     * Under autocast the weight gradient reads the 16-bit copy of x that forward made, but only of that x: an x
     * that took its memory after it was closed (the allocator hands the address out again) is cast afresh, so dW is
     * the one a forward and backward of the new x give.
     */
    @Test
    void autocastWeightGradReadsTheCopyOfThisXNotOfOneThatHadItsAddress() {
        CudaDevice device = GpuDevice.openOrSkip();
        try (device; Stream s = device.createStream(0, true); OpContext ctx = new OpContext(device, s);
             Linear reused = new Linear(ctx, "fc", 32, 16, false, 3);
             Linear fresh = new Linear(ctx, "fc", 32, 16, false, 3)) {
            ctx.autocast(DType.BF16);
            int rows = 8;
            float[] first = new float[rows * 32];
            float[] second = new float[rows * 32];
            float[] gs = new float[rows * 16];
            for (int i = 0; i < first.length; i++) {
                first[i] = (float) Math.sin(0.3 * i);
                second[i] = (float) Math.cos(0.7 * i) * 2;
            }
            for (int i = 0; i < gs.length; i++) {
                gs[i] = (float) Math.sin(0.05 * i + 1);
            }
            try (Tensor y = ctx.empty("t", "y", DType.FP32, rows, 16);
                 Tensor dy = Tensor.of(device, "dy", DType.FP32, gs, rows, 16)) {
                long firstAddress;
                try (Tensor x1 = Tensor.of(device, "x", DType.FP32, first, rows, 32)) {
                    reused.forward(x1, y, s);
                    firstAddress = x1.address();
                }
                try (Tensor x2 = Tensor.of(device, "x", DType.FP32, second, rows, 32)) {
                    reused.zeroGrad(s);
                    reused.backward(x2, dy, null, s);
                    fresh.forward(x2, y, s);
                    fresh.zeroGrad(s);
                    fresh.backward(x2, dy, null, s);
                    assertThat(reused.weight().grad().toFloats()).as("dW of x2 (x2 at x1's address: %s)",
                            x2.address() == firstAddress).containsExactly(fresh.weight().grad().toFloats());
                }
            }
        }
    }

    private static float[] twice(float[] v) {
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = 2 * v[i];
        }
        return out;
    }

    /** Live device bytes less the BLAS libraries' workspaces, which a context keeps until it closes. */
    private static long tensorBytes(CudaDevice device) {
        return device.memoryStats().allocatedBytes() - device.allocator().liveBytes(Cublas.WORKSPACE_OWNER)
                - device.allocator().liveBytes(CublasLt.WORKSPACE_OWNER);
    }
}
