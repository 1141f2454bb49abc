package dev.aorta.agent.advice;

import dev.aorta.agent.bind.CollectiveBinder;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;

/**
 * Our own NCCL binding's reducing collectives, {@code NcclComm#allReduce/reduceScatter(send, recv, count,
 * dtype, op, stream)}. With {@code bind-collectives=true} the stream argument is replaced, before the
 * call, by the device's communication stream (which first waits for the application's stream); after
 * the call the binder arranges the join back.
 */
public final class CollectiveAdvice {
    private CollectiveAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.Argument(value = 5, readOnly = false) long stream,
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
                     @Advice.Argument(3) int dtype, @Advice.Argument(4) int op, @Advice.Argument(5) long stream,
                     @Advice.Local("applicationStream") long applicationStream) {
        if (CollectiveBinder.active) {
            CollectiveBinder.afterCollective(applicationStream, stream);
        }
        Recorder.record(id, start, stream, thrown == null ? 0 : Results.THREW, count, dtype, op,
                System.identityHashCode(communicator), send, recv, applicationStream, 0);
    }
}
