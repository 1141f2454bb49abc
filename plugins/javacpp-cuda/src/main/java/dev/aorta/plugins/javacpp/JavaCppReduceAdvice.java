package dev.aorta.plugins.javacpp;

import dev.aorta.agent.advice.CallId;
import dev.aorta.agent.advice.Results;
import dev.aorta.agent.bind.CollectiveBinder;
import dev.aorta.agent.recorder.Recorder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import org.bytedeco.javacpp.Pointer;

/**
 * nccl.ncclAllReduce/ncclReduceScatter(send, recv, count, datatype, op, comm, stream). Wraps the native method
 * (native-method prefix); stateless, never throws into the caller. With {@code bind-collectives=true} the stream
 * argument is replaced, before the call, by the device's comm stream ({@link JavaCppStreams}).
 */
public final class JavaCppReduceAdvice {
    private JavaCppReduceAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@Advice.Argument(value = 6, readOnly = false, typing = Assigner.Typing.DYNAMIC) Pointer stream,
                      @Advice.Local("applicationStream") Pointer applicationStream) {
        applicationStream = stream;
        if (CollectiveBinder.wanted) {
            stream = JavaCppStreams.beforeCollective(stream);
        }
        return Recorder.now();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                     @Advice.Thrown Throwable thrown,
                     @Advice.Argument(0) Pointer send, @Advice.Argument(1) Pointer recv, @Advice.Argument(2) long count,
                     @Advice.Argument(3) int dtype, @Advice.Argument(4) int op, @Advice.Argument(5) Pointer comm,
                     @Advice.Argument(6) Pointer stream, @Advice.Local("applicationStream") Pointer applicationStream) {
        int code = thrown == null ? result : Results.THREW;
        if (CollectiveBinder.active) {
            JavaCppStreams.afterCollective(applicationStream, stream);
        }
        Recorder.record(id, start, JavaCppAddress.of(stream), code, count, dtype, op, JavaCppAddress.of(comm),
                JavaCppAddress.of(send), JavaCppAddress.of(recv), JavaCppAddress.of(applicationStream), 0);
    }
}
