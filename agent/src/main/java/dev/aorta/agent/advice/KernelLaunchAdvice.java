package dev.aorta.agent.advice;

import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/**
 * Our own FFM launch path, {@code dev.aorta.gpu.cuda.KernelLaunch#launch()}: the launch's shape lives in
 * the instance's fields (names checked by the plugin before it instruments the class).
 */
public final class KernelLaunchAdvice {
    private KernelLaunchAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {
        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Thrown Throwable thrown,
                     @Advice.FieldValue("function") long function,
                     @Advice.FieldValue("gridX") int gridX, @Advice.FieldValue("gridY") int gridY,
                     @Advice.FieldValue("gridZ") int gridZ, @Advice.FieldValue("blockX") int blockX,
                     @Advice.FieldValue("blockY") int blockY, @Advice.FieldValue("blockZ") int blockZ,
                     @Advice.FieldValue("sharedBytes") int sharedMem, @Advice.FieldValue("stream") long stream) {
        Recorder.record(id, start, stream, thrown == null ? 0 : Results.THREW, gridX, gridY, gridZ, blockX, blockY,
                blockZ, sharedMem, function);
    }
}
