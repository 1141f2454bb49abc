package dev.aorta.agent.advice;

import dev.aorta.agent.bind.CollectiveBinder;
import dev.aorta.agent.pipeline.Drainer;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** {@code Aorta.step(n)}: iteration n begins (and the previous one ends) at this instant. */
public final class StepAdvice {
    private StepAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@CallId int id, @Advice.Argument(0) long step) {
        if (CollectiveBinder.active) {
            CollectiveBinder.atIterationMarker();
        }
        Recorder.marker(id, Recorder.markerNow(), step, 0);
        Drainer.wake();
    }
}
