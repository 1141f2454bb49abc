package dev.aorta.agent.advice;

import dev.aorta.agent.bind.CollectiveBinder;
import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** cuStreamSynchronize / cudaStreamSynchronize; a join point for join=next-sync. */
public final class StreamSyncAdvice {
    private StreamSyncAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.Argument(0) Object stream) {
        if (CollectiveBinder.active) {
            CollectiveBinder.beforeSync(NativeAddress.of(stream));
        }
        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Object stream) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, NativeAddress.of(stream), code);
    }
}
