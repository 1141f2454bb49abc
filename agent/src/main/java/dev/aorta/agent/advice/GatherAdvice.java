package dev.aorta.agent.advice;

import dev.aorta.agent.bind.CollectiveBinder;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/** {@code NcclComm#allGather(send, recv, sendCount, dtype, stream)}: like {@link CollectiveAdvice}, without an op. */
public final class GatherAdvice {
    private GatherAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.Argument(value = 4, readOnly = false) long stream,
                      @Advice.Local("applicationStream") long applicationStream) {
        applicationStream = stream;
        if (CollectiveBinder.active) {
            stream = CollectiveBinder.beforeCollective(stream);
        }
        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Thrown Throwable thrown,
                     @Advice.This Object communicator,
                     @Advice.Argument(0) long send, @Advice.Argument(1) long recv, @Advice.Argument(2) long count,
                     @Advice.Argument(3) int dtype, @Advice.Argument(4) long stream,
                     @Advice.Local("applicationStream") long applicationStream) {
        if (CollectiveBinder.active) {
            CollectiveBinder.afterCollective(applicationStream, stream);
        }
        Recorder.record(id, start, stream, thrown == null ? 0 : Results.THREW, count, dtype, -1,
                System.identityHashCode(communicator), send, recv, applicationStream, 0);
    }
}
