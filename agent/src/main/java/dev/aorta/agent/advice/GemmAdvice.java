package dev.aorta.agent.advice;

import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** JCublas2 cublas*gemm*(handle, transa, transb, m, n, k, ...): the stream is the handle's (cublasSetStream). */
public final class GemmAdvice {
    private GemmAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {

        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Object handle, @Advice.Argument(3) int m, @Advice.Argument(4) int n,
                     @Advice.Argument(5) int k) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, 0, code, NativeAddress.of(handle), m, n, k);
    }
}
