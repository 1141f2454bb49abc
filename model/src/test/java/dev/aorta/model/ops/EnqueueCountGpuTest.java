package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The device's count of enqueuing calls (what the harness divides host time by) over ops whose launches are known:
 * measured, not declared. Skipped, with the reason, without a GPU.
 */
class EnqueueCountGpuTest {

    /**
     * One cached-attention step: in-projection with its bias in cuBLASLt's epilogue, q/k/v layout with the cache
     * append, scores, softmax, weighted values, and the out-projection with its bias and the residual; the heads'
     * merge is a launch of its own only where the weighted values cannot be written merged (several sequences of
     * several positions).
     */
    @Test
    void aCachedAttentionStepMakesSixCallsOrSevenWhenItsHeadsMergeApart() {
        CudaDevice device = GpuDevice.openOrSkip();
        try (device; Stream s = device.createStream(0, true); OpContext ctx = new OpContext(device, s);
             CachedSelfAttention attention = new CachedSelfAttention(ctx, "attn", 64, 4, 3)) {
            assertThat(callsOfOneStep(device, ctx, attention, s, 1, 512)).isEqualTo(6); // a prefill of one request
            assertThat(callsOfOneStep(device, ctx, attention, s, 8, 1)).isEqualTo(6); // a decode step of 8 sequences
            assertThat(callsOfOneStep(device, ctx, attention, s, 2, 256)).isEqualTo(7); // rag_pipeline's generator
        }
    }

    /** fp32 Linear with a bias: the bias rides in cuBLASLt's epilogue, one call (two before the fusion). */
    @Test
    void anFp32LinearWithBiasIsOneCall() {
        CudaDevice device = GpuDevice.openOrSkip();
        try (device; Stream s = device.createStream(0, true); OpContext ctx = new OpContext(device, s);
             Linear fc = new Linear(ctx, "fc", 64, 96, true, 5);
             Tensor x = ctx.empty("t", "x", DType.FP32, 32, 64);
             Tensor y = ctx.empty("t", "y", DType.FP32, 32, 96)) {
            fc.forward(x, y, s); // plans and workspaces made on first use: the count of a later call is the steady one
            long before = device.enqueues().total();
            fc.forward(x, y, s);
            assertThat(device.enqueues().total() - before).isEqualTo(1);
            s.synchronize();
        }
    }

    private static long callsOfOneStep(CudaDevice device, OpContext ctx, CachedSelfAttention attention, Stream s,
                                       int batch, int t) {
        try (Tensor x = ctx.empty("t", "x", DType.FP32, batch, t, 64);
             Tensor y = ctx.empty("t", "y", DType.FP32, batch, t, 64);
             CachedSelfAttention.KvCache cache = attention.cache(batch, 2 * t)) {
            attention.forward(x, y, cache, s); // first call: plans and scratch
            long before = device.enqueues().total();
            attention.forward(x, y, cache, s);
            long calls = device.enqueues().total() - before;
            s.synchronize();
            return calls;
        }
    }
}
