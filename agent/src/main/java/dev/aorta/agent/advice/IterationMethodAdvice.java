package dev.aorta.agent.advice;

import dev.aorta.agent.bind.CollectiveBinder;
import dev.aorta.agent.pipeline.Drainer;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** The application method named by {@code iteration-method}: each call's span is one iteration. */
public final class IterationMethodAdvice {
    private IterationMethodAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {
        return Recorder.iterationMethodEntered();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Thrown Throwable thrown) {
        if (CollectiveBinder.active) {
            CollectiveBinder.atIterationMarker();
        }
        Recorder.marker(id, start, 0, thrown == null ? 0 : Results.THREW);
        Drainer.wake();
    }
}
