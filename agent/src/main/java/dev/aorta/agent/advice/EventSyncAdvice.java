package dev.aorta.agent.advice;

import dev.aorta.agent.bind.CollectiveBinder;
import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** cuEventSynchronize / cudaEventSynchronize; a join point for join=next-sync. */
public final class EventSyncAdvice {
    private EventSyncAdvice() {
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
                     @Advice.Argument(0) Object event) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, 0, code, NativeAddress.of(event), 0);
    }
}
