package dev.aorta.agent.advice;

import dev.aorta.agent.device.EventPairSampler;
import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/**
 * cuCtxDestroy (context): before the context goes, the sampled event pairs let go of their events and gates in it
 * (its address may come back as a new context's); the call itself is recorded like any other, the context in a0.
 */
public final class ContextDestroyAdvice {
    private ContextDestroyAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.Argument(0) Object context) {
        EventPairSampler.contextDestroying(NativeAddress.of(context));
        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown, @Advice.Argument(0) Object context) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, 0, code, NativeAddress.of(context), 0);
    }
}
