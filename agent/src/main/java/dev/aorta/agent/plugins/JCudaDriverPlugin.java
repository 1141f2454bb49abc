package dev.aorta.agent.plugins;

import dev.aorta.agent.advice.AllocAdvice;
import dev.aorta.agent.advice.ContextDestroyAdvice;
import dev.aorta.agent.advice.ContextSyncAdvice;
import dev.aorta.agent.advice.CopyAdvice;
import dev.aorta.agent.advice.CopyAsyncAdvice;
import dev.aorta.agent.advice.EventSyncAdvice;
import dev.aorta.agent.advice.HandleAdvice;
import dev.aorta.agent.advice.HandleOnStreamAdvice;
import dev.aorta.agent.advice.LaunchAdvice;
import dev.aorta.agent.advice.MemsetAdvice;
import dev.aorta.agent.advice.MemsetAsyncAdvice;
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
 * JCuda's driver API, {@code jcuda.driver.JCudaDriver}: its public static methods are plain Java
 * ({@code checkResult(cuXxxNative(...))}), so inlined advice works at load time and on retransformation.
 */
public final class JCudaDriverPlugin implements InterceptionPlugin {
    static final String DRIVER = "jcuda.driver.JCudaDriver";

    @Override
    public String name() {
        return "jcuda-driver";
    }

    @Override
    public String probeClass() {
        return DRIVER;
    }

    @Override
    public List<String> requiredMethods() {
        return List.of("cuLaunchKernel/11", "cuStreamCreate/2", "cuEventRecord/2", "cuStreamWaitEvent/3");
    }

    @Override
    public List<Interception> interceptions() {
        return List.of(
                i("cuLaunchKernel", 11, CallKind.LAUNCH, LaunchAdvice.class),
                i("cuLaunchCooperativeKernel", 10, CallKind.LAUNCH, LaunchAdvice.class),
                i("cuGraphLaunch", 2, CallKind.GRAPH_LAUNCH, HandleOnStreamAdvice.class),

                i("cuMemcpyAsync", 4, CallKind.COPY, CopyAsyncAdvice.class).copy("default"),
                i("cuMemcpyHtoDAsync", 4, CallKind.COPY, CopyAsyncAdvice.class).copy("HtoD"),
                i("cuMemcpyDtoHAsync", 4, CallKind.COPY, CopyAsyncAdvice.class).copy("DtoH"),
                i("cuMemcpyDtoDAsync", 4, CallKind.COPY, CopyAsyncAdvice.class).copy("DtoD"),
                i("cuMemcpy", 3, CallKind.COPY, CopyAdvice.class).copy("default"),
                i("cuMemcpyHtoD", 3, CallKind.COPY, CopyAdvice.class).copy("HtoD"),
                i("cuMemcpyDtoH", 3, CallKind.COPY, CopyAdvice.class).copy("DtoH"),
                i("cuMemcpyDtoD", 3, CallKind.COPY, CopyAdvice.class).copy("DtoD"),

                i("cuMemsetD8Async", 4, CallKind.MEMSET, MemsetAsyncAdvice.class),
                i("cuMemsetD16Async", 4, CallKind.MEMSET, MemsetAsyncAdvice.class).unit(2),
                i("cuMemsetD32Async", 4, CallKind.MEMSET, MemsetAsyncAdvice.class).unit(4),
                i("cuMemsetD8", 3, CallKind.MEMSET, MemsetAdvice.class),
                i("cuMemsetD16", 3, CallKind.MEMSET, MemsetAdvice.class).unit(2),
                i("cuMemsetD32", 3, CallKind.MEMSET, MemsetAdvice.class).unit(4),

                i("cuStreamCreate", 2, CallKind.STREAM_CREATE, StreamCreateAdvice.class),
                i("cuStreamCreateWithPriority", 3, CallKind.STREAM_CREATE, StreamCreatePriorityAdvice.class),
                i("cuStreamDestroy", 1, CallKind.STREAM_DESTROY, StreamHandleAdvice.class),

                i("cuStreamSynchronize", 1, CallKind.SYNC, StreamSyncAdvice.class),
                i("cuCtxSynchronize", 0, CallKind.SYNC, ContextSyncAdvice.class),
                i("cuCtxDestroy", 1, CallKind.CONTEXT_DESTROY, ContextDestroyAdvice.class),
                i("cuEventSynchronize", 1, CallKind.EVENT_SYNC, EventSyncAdvice.class),
                i("cuEventQuery", 1, CallKind.EVENT_QUERY, HandleAdvice.class),
                i("cuEventRecord", 2, CallKind.EVENT_RECORD, HandleOnStreamAdvice.class),
                i("cuEventRecordWithFlags", 3, CallKind.EVENT_RECORD, HandleOnStreamAdvice.class),
                i("cuStreamWaitEvent", 3, CallKind.STREAM_WAIT, StreamWaitAdvice.class),

                i("cuMemAlloc", 2, CallKind.ALLOC, AllocAdvice.class),
                i("cuMemAllocManaged", 3, CallKind.ALLOC, AllocAdvice.class),
                i("cuMemFree", 1, CallKind.FREE, HandleAdvice.class),
                i("cuMemFreeAsync", 2, CallKind.FREE, HandleOnStreamAdvice.class));
    }

    private static Interception i(String method, int arity, CallKind kind, Class<?> advice) {
        return Interception.of(DRIVER, method, arity, kind, advice);
    }
}
