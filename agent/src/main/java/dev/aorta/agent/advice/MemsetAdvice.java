package dev.aorta.agent.advice;

import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** Synchronous memset (dst, value, count): cuMemsetD8/16/32, cudaMemset. */
public final class MemsetAdvice {
    private MemsetAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {

        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Object dst, @Advice.Argument(2) long count) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, 0, code, count, -1, NativeAddress.of(dst), 0);
    }
}
