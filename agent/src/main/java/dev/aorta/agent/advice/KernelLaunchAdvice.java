package dev.aorta.agent.advice;

import dev.aorta.agent.device.EventPairSampler;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/**
 * Our own FFM launch path, {@code dev.aorta.gpu.cuda.KernelLaunch#launch()}: the launch's shape lives in
 * the instance's fields (names checked by the plugin before it instruments the class). Sampled event
 * pairs as in {@link LaunchAdvice}.
 */
public final class KernelLaunchAdvice {
    private KernelLaunchAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.FieldValue("stream") long stream, @Advice.Local("sample") int sample) {
        sample = -1;
        if (EventPairSampler.enabled && EventPairSampler.due(stream)) {
            sample = EventPairSampler.before(stream);
        }
        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Thrown Throwable thrown,
                     @Advice.FieldValue("function") long function,
                     @Advice.FieldValue("gridX") int gridX, @Advice.FieldValue("gridY") int gridY,
                     @Advice.FieldValue("gridZ") int gridZ, @Advice.FieldValue("blockX") int blockX,
                     @Advice.FieldValue("blockY") int blockY, @Advice.FieldValue("blockZ") int blockZ,
                     @Advice.FieldValue("sharedBytes") int sharedMem, @Advice.FieldValue("stream") long stream,
                     @Advice.Local("sample") int sample) {
        if (sample >= 0) {
            EventPairSampler.after(sample, stream, function, gridX, blockX, thrown == null);
        }
        Recorder.record(id, start, stream, thrown == null ? 0 : Results.THREW, gridX, gridY, gridZ, blockX, blockY,
                blockZ, sharedMem, function);
    }
}
