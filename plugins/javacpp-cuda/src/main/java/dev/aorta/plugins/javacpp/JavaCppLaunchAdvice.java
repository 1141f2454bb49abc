package dev.aorta.plugins.javacpp;

import dev.aorta.agent.advice.CallId;
import dev.aorta.agent.advice.Results;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;
import org.bytedeco.javacpp.Pointer;

/** cudart.cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, stream): JavaCPP's dim3 getters are native, so the grid is not read. Wraps the native method (native-method prefix); stateless, never throws into the caller. */
public final class JavaCppLaunchAdvice {
    private JavaCppLaunchAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {
        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Pointer function, @Advice.Argument(4) long sharedMem,
                     @Advice.Argument(5) Pointer stream) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, JavaCppAddress.of(stream), code, 0, 0, 0, 0, 0, 0, sharedMem,
                JavaCppAddress.of(function));
    }
}
