package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.CudaGraph;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.Tensor;

import java.util.Arrays;
import java.util.Optional;

/** The check of a {@link CachedDecoder} that a workload ran: a sequence fed as a prefill and then one decode step. */
final class DecoderCheck {
    private DecoderCheck() {
    }

    /**
     * Feeds a random sequence of {@code length} positions through {@code decoder} as a prefill of length − 1 and one
     * decode step that reads the KV cache, on {@code stream} after the run, and compares every position with float64
     * of the whole sequence at once.
     */
    static Optional<String> prefillThenDecode(String what, ModelRuntime rt, CachedDecoder decoder, Stream stream,
                                              int dim, int length, long seed) {
        return check(what, rt, decoder, stream, dim, length, seed, false);
    }

    /**
     * As {@link #prefillThenDecode}, the decode step captured as a CUDA graph of {@link
     * CachedDecoder#forwardAtDevicePosition} and replayed, in a cache with 3 slots more than the sequence that
     * held another sequence of its full length before (the masked slots after the position hold stale values).
     */
    static Optional<String> prefillThenReplayedDecode(String what, ModelRuntime rt, CachedDecoder decoder,
                                                      Stream stream, int dim, int length, long seed) {
        return check(what, rt, decoder, stream, dim, length, seed, true);
    }

    private static Optional<String> check(String what, ModelRuntime rt, CachedDecoder decoder, Stream stream, int dim,
                                          int length, long seed, boolean replayed) {
        float[] x = ModelWorkload.random(length * dim, seed);
        int maxT = replayed ? length + 3 : length;
        try (CachedDecoder.Cache cache = decoder.cache(1, maxT, maxT);
             Tensor prefix = Tensor.of(rt.device(), "check prefix", DType.FP32,
                     Arrays.copyOfRange(x, 0, (length - 1) * dim), 1, length - 1, dim);
             Tensor last = Tensor.of(rt.device(), "check last position", DType.FP32,
                     Arrays.copyOfRange(x, (length - 1) * dim, length * dim), 1, 1, dim);
             Tensor prefixOut = Tensor.empty(rt.device(), what, "check prefix output", DType.FP32, 1, length - 1, dim);
             Tensor lastOut = Tensor.empty(rt.device(), what, "check last output", DType.FP32, 1, 1, dim)) {
            if (replayed) {
                cache.keepPositionOnDevice(stream);
                try (Tensor stale = Tensor.of(rt.device(), "check stale sequence", DType.FP32,
                        ModelWorkload.random(maxT * dim, seed + 1), 1, maxT, dim);
                     Tensor staleOut = Tensor.empty(rt.device(), what, "check stale output", DType.FP32, 1, maxT, dim)) {
                    decoder.forward(stale, staleOut, cache, stream);
                    stream.synchronize();
                }
                cache.reset();
                decoder.forward(prefix, prefixOut, cache, stream);
                // once eagerly (kernels loaded, GEMM plans made before the capture), then back to length − 1
                decoder.forwardAtDevicePosition(last, lastOut, cache, stream);
                cache.reset();
                decoder.forward(prefix, prefixOut, cache, stream);
                stream.beginCapture();
                decoder.forwardAtDevicePosition(last, lastOut, cache, stream);
                try (CudaGraph step = stream.endCapture()) {
                    lastOut.zero(stream); // what the replay writes, not what the eager step left
                    step.launch(stream);
                    cache.advanced(1);
                    stream.synchronize();
                }
            } else {
                decoder.forward(prefix, prefixOut, cache, stream);
                decoder.forward(last, lastOut, cache, stream);
                stream.synchronize();
            }
            float[] got = new float[length * dim];
            System.arraycopy(prefixOut.toFloats(), 0, got, 0, (length - 1) * dim);
            System.arraycopy(lastOut.toFloats(), 0, got, (length - 1) * dim, dim);
            return Reference.compare(what + " on " + (length - 1) + " prefilled positions and 1 decoded from the KV cache"
                    + (replayed ? " by a replayed CUDA graph" : ""), got, decoder.reference(Reference.doubles(x), length));
        }
    }
}
