package dev.aorta.agent.advice;

import dev.aorta.agent.device.EventPairSampler;
import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/**
 * cuLaunchKernel / cuLaunchCooperativeKernel: function, grid, block, shared memory, stream. With sampled
 * event pairs on, every Nth launch of each stream is gated and bracketed by two events (outside the timed span;
 * see {@link EventPairSampler}).
 */
public final class LaunchAdvice {
    private LaunchAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.Argument(8) Object stream, @Advice.Local("sample") int sample) {
        sample = -1;
        if (EventPairSampler.enabled) {
            long s = NativeAddress.of(stream);
            if (EventPairSampler.due(s)) {
                sample = EventPairSampler.before(s);
            }
        }
        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Object function,
                     @Advice.Argument(1) int gridX, @Advice.Argument(2) int gridY, @Advice.Argument(3) int gridZ,
                     @Advice.Argument(4) int blockX, @Advice.Argument(5) int blockY, @Advice.Argument(6) int blockZ,
                     @Advice.Argument(7) int sharedMem, @Advice.Argument(8) Object stream,
                     @Advice.Local("sample") int sample) {
        if (start == Recorder.OUTSIDE_WINDOW && sample < 0) {
            // outside a capture window with the advice still woven (between-windows=gated) nothing is recorded, so
            // nothing is read: the handles' native addresses were loaded before the gate was looked at, which cost
            // 15-27 ns a launch at 16 streams on an H100 (paired in process, 2026-12-07), 0 within +-12 ns at one
            return;
        }
        int code = thrown == null ? result : Results.THREW;
        long s = NativeAddress.of(stream);
        long f = NativeAddress.of(function);
        if (sample >= 0) {
            // also after an error or exception: it opens the stream's gate
            EventPairSampler.after(sample, s, f, gridX, blockX, code == 0);
        }
        Recorder.record(id, start, s, code, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem, f);
    }
}
