package dev.aorta.agent.advice;

import dev.aorta.agent.recorder.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** cuLaunchKernel / cuLaunchCooperativeKernel: function, grid, block, shared memory, stream. */
public final class LaunchAdvice {
    private LaunchAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {

        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Object function,
                     @Advice.Argument(1) int gridX, @Advice.Argument(2) int gridY, @Advice.Argument(3) int gridZ,
                     @Advice.Argument(4) int blockX, @Advice.Argument(5) int blockY, @Advice.Argument(6) int blockZ,
                     @Advice.Argument(7) int sharedMem, @Advice.Argument(8) Object stream) {
        int code = thrown == null ? result : Results.THREW;
        Recorder.record(id, start, NativeAddress.of(stream), code, gridX, gridY, gridZ, blockX, blockY, blockZ,
                sharedMem, NativeAddress.of(function));
    }
}
