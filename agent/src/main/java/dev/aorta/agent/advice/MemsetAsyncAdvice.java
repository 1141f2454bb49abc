package dev.aorta.agent.advice;

import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** Asynchronous memset (dst, value, count, stream): cuMemsetD8/16/32Async, cudaMemsetAsync. */
public final class MemsetAsyncAdvice {
    private MemsetAsyncAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {

        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Object dst, @Advice.Argument(2) long count, @Advice.Argument(3) Object stream) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, NativeAddress.of(stream), code, count, -1, NativeAddress.of(dst), 0);
    }
}
