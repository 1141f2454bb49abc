package dev.aorta.agent.advice;

import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** cuStreamCreate / cudaStreamCreateWithFlags (stream out, flags). */
public final class StreamCreateAdvice {
    private StreamCreateAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {

        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Object stream, @Advice.Argument(1) int flags) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, NativeAddress.of(stream), code, flags, 0);
    }
}
