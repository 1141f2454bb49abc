package dev.aorta.agent.advice;

import dev.aorta.agent.bind.CollectiveBinder;
import dev.aorta.agent.bind.OwnStreams;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/** aorta-gpu {@code NcclComm#allGather(send, recv, sendCount, NcclDataType, Stream)}: like {@link CollectiveAdvice}, without an op. */
public final class GatherAdvice {
    private GatherAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.Argument(value = 4, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object stream,
                      @Advice.Local("applicationStream") Object applicationStream) {
        applicationStream = stream;
        if (CollectiveBinder.active) {
            stream = OwnStreams.beforeCollective(stream);
        }
        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Thrown Throwable thrown,
                     @Advice.FieldValue("comm") long communicator,
                     @Advice.Argument(0) long send, @Advice.Argument(1) long recv, @Advice.Argument(2) long count,
                     @Advice.Argument(3) Enum<?> dtype,
                     @Advice.Argument(value = 4, typing = Assigner.Typing.DYNAMIC) Object stream,
                     @Advice.Local("applicationStream") Object applicationStream) {
        if (CollectiveBinder.active) {
            OwnStreams.afterCollective(applicationStream, stream);
        }
        Recorder.record(id, start, OwnStreams.address(stream), thrown == null ? 0 : Results.THREW, count,
                dtype.ordinal(), -1, communicator, send, recv, OwnStreams.address(applicationStream), 0);
    }
}
