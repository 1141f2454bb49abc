package dev.aorta.agent.advice;

import dev.aorta.agent.bind.CollectiveBinder;
import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** Synchronous copy (dst, src, bytes), e.g. cuMemcpyDtoH; a join point for bind-collectives join=next-sync. */
public final class CopyAdvice {
    private CopyAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {
        if (CollectiveBinder.active) {
            CollectiveBinder.beforeSync(CollectiveBinder.ALL_STREAMS);
        }
        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Object dst, @Advice.Argument(1) Object src, @Advice.Argument(2) long bytes) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, 0, code, bytes, -1, NativeAddress.of(dst), NativeAddress.of(src));
    }
}
