package dev.aorta.plugins.javacpp;

import dev.aorta.agent.advice.CallId;
import dev.aorta.agent.advice.Results;
import dev.aorta.agent.bind.CollectiveBinder;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;
import org.bytedeco.javacpp.Pointer;

/** cudart.cudaStreamSynchronize(stream). Wraps the native method (native-method prefix); stateless, never throws into the caller. */
public final class JavaCppStreamAdvice {
    private JavaCppStreamAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.Argument(0) Pointer stream) {
        if (CollectiveBinder.active) {
            CollectiveBinder.beforeSync(JavaCppAddress.of(stream));  // a join point of bind-collectives' next-sync
        }
        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Pointer stream) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, JavaCppAddress.of(stream), code);
    }
}
