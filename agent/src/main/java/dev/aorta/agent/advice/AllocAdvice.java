package dev.aorta.agent.advice;

import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** cuMemAlloc / cudaMalloc (pointer out, bytes): the address is read after the call filled it in. */
public final class AllocAdvice {
    private AllocAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {

        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Object pointer, @Advice.Argument(1) long bytes) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, 0, code, bytes, NativeAddress.of(pointer));
    }
}
