package dev.aorta.agent.advice;

import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/**
 * Our own cuBLAS binding's GEMM methods ({@code dev.aorta.gpu.blas.Cublas}): they take the stream as
 * their last {@code long} argument, so the GEMM is attributed to that stream directly.
 */
public final class StreamArgumentGemmAdvice {
    private StreamArgumentGemmAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {
        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Thrown Throwable thrown,
                     @LastLongArgument long stream) {
        Recorder.record(id, start, stream, thrown == null ? 0 : Results.THREW);
    }
}
