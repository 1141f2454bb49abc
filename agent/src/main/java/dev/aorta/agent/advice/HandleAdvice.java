package dev.aorta.agent.advice;

import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** A call on one handle (event query, free): the handle's address in a0. */
public final class HandleAdvice {
    private HandleAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {

        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Object handle) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, 0, code, NativeAddress.of(handle), 0);
    }
}
