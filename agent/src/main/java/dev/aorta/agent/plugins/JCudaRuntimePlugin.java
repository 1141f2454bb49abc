package dev.aorta.agent.plugins;

import dev.aorta.agent.advice.AllocAdvice;
import dev.aorta.agent.advice.ContextSyncAdvice;
import dev.aorta.agent.advice.EventSyncAdvice;
import dev.aorta.agent.advice.HandleAdvice;
import dev.aorta.agent.advice.HandleOnStreamAdvice;
import dev.aorta.agent.advice.MemsetAdvice;
import dev.aorta.agent.advice.MemsetAsyncAdvice;
import dev.aorta.agent.advice.RuntimeCopyAdvice;
import dev.aorta.agent.advice.RuntimeCopyAsyncAdvice;
import dev.aorta.agent.advice.StreamCreateAdvice;
import dev.aorta.agent.advice.StreamCreatePriorityAdvice;
import dev.aorta.agent.advice.StreamHandleAdvice;
import dev.aorta.agent.advice.StreamSyncAdvice;
import dev.aorta.agent.advice.StreamWaitAdvice;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import dev.aorta.agent.spi.InterceptionPlugin;

import java.util.List;

/**
 * JCuda's runtime API, {@code jcuda.runtime.JCuda}: the same families as the driver plugin (JCuda's
 * runtime has no kernel launch of its own; launches go through the driver API).
 */
public final class JCudaRuntimePlugin implements InterceptionPlugin {
    static final String RUNTIME = "jcuda.runtime.JCuda";

    @Override
    public String name() {
        return "jcuda-runtime";
    }

    @Override
    public String probeClass() {
        return RUNTIME;
    }

    @Override
    public List<String> requiredMethods() {
        return List.of("cudaMemcpyAsync/5", "cudaStreamCreate/1", "cudaEventRecord/2");
    }

    @Override
    public List<Interception> interceptions() {
        return List.of(
                i("cudaMemcpyAsync", 5, CallKind.COPY, RuntimeCopyAsyncAdvice.class),
                i("cudaMemcpy", 4, CallKind.COPY, RuntimeCopyAdvice.class),
                i("cudaMemsetAsync", 4, CallKind.MEMSET, MemsetAsyncAdvice.class),
                i("cudaMemset", 3, CallKind.MEMSET, MemsetAdvice.class),

                i("cudaStreamCreate", 1, CallKind.STREAM_CREATE, StreamHandleAdvice.class),
                i("cudaStreamCreateWithFlags", 2, CallKind.STREAM_CREATE, StreamCreateAdvice.class),
                i("cudaStreamCreateWithPriority", 3, CallKind.STREAM_CREATE, StreamCreatePriorityAdvice.class),
                i("cudaStreamDestroy", 1, CallKind.STREAM_DESTROY, StreamHandleAdvice.class),

                i("cudaStreamSynchronize", 1, CallKind.SYNC, StreamSyncAdvice.class),
                i("cudaDeviceSynchronize", 0, CallKind.SYNC, ContextSyncAdvice.class),
                i("cudaEventSynchronize", 1, CallKind.EVENT_SYNC, EventSyncAdvice.class),
                i("cudaEventQuery", 1, CallKind.EVENT_QUERY, HandleAdvice.class),
                i("cudaEventRecord", 2, CallKind.EVENT_RECORD, HandleOnStreamAdvice.class),
                i("cudaEventRecordWithFlags", 3, CallKind.EVENT_RECORD, HandleOnStreamAdvice.class),
                i("cudaStreamWaitEvent", 3, CallKind.STREAM_WAIT, StreamWaitAdvice.class),

                i("cudaMalloc", 2, CallKind.ALLOC, AllocAdvice.class),
                i("cudaFree", 1, CallKind.FREE, HandleAdvice.class));
    }

    private static Interception i(String method, int arity, CallKind kind, Class<?> advice) {
        return Interception.of(RUNTIME, method, arity, kind, advice);
    }
}
