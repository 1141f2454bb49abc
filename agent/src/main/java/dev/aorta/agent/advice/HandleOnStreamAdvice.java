package dev.aorta.agent.advice;

import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** A handle used on a stream (event record, graph launch, cublasSetStream, free async): handle in a0. */
public final class HandleOnStreamAdvice {
    private HandleOnStreamAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {

        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Object handle, @Advice.Argument(1) Object stream) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, NativeAddress.of(stream), code, NativeAddress.of(handle), 0);
    }
}
