package dev.aorta.agent.advice;

import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/**
 * aorta-gpu {@code Cublas#gemmStridedBatched(precision, transA, transB, m, n, k, ...)} (the overload with
 * transposes and leading dimensions) on the handle's stream.
 */
public final class CublasStridedGemmTransposedAdvice {
    private CublasStridedGemmTransposedAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {
        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Thrown Throwable thrown,
                     @Advice.FieldValue("stream") long stream,
                     @Advice.Argument(3) int m, @Advice.Argument(4) int n, @Advice.Argument(5) int k) {
        Recorder.record(id, start, stream, thrown == null ? 0 : Results.THREW, 0, m, n, k);
    }
}
