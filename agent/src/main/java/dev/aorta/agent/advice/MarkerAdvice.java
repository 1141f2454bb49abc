package dev.aorta.agent.advice;

import dev.aorta.agent.bind.CollectiveBinder;
import dev.aorta.agent.pipeline.Drainer;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** {@code Aorta.stepBegin/stepEnd/finish}: an instant on the host clock. */
public final class MarkerAdvice {
    private MarkerAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@CallId int id) {
        if (CollectiveBinder.active) {
            CollectiveBinder.atIterationMarker();
        }
        Recorder.marker(id, Recorder.markerNow(), 0, 0);
        Drainer.wake();
    }
}
