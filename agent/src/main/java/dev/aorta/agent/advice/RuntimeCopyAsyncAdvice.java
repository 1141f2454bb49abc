package dev.aorta.agent.advice;

import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** cudaMemcpyAsync(dst, src, bytes, kind, stream). */
public final class RuntimeCopyAsyncAdvice {
    private RuntimeCopyAsyncAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {

        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Object dst, @Advice.Argument(1) Object src, @Advice.Argument(2) long bytes,
                     @Advice.Argument(3) int kind, @Advice.Argument(4) Object stream) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, NativeAddress.of(stream), code, bytes, kind, NativeAddress.of(dst), NativeAddress.of(src));
    }
}
