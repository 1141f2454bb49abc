package dev.aorta.plugins.javacpp;

import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import dev.aorta.agent.spi.InterceptionPlugin;

import java.util.List;

/**
 * JavaCPP's CUDA presets ({@code org.bytedeco.cuda.global.cudart}, {@code .nccl}): their API methods are
 * {@code public static native}, so the agent wraps them with the native-method prefix, which only works
 * while a class first loads: start the application with {@code -javaagent}; attached late, the agent says
 * that these classes stay unwrapped. Enabled by its place, {@code dist/plugins/} beside the agent's {@code lib/}.
 */
public final class JavaCppCudaPlugin implements InterceptionPlugin {
    static final String CUDART = "org.bytedeco.cuda.global.cudart";
    static final String NCCL = "org.bytedeco.cuda.global.nccl";

    @Override
    public String name() {
        return "javacpp-cuda";
    }

    @Override
    public String probeClass() {
        return CUDART;
    }

    @Override
    public boolean needsLoadTimeTransformation() {
        return true;
    }

    @Override
    public List<Interception> interceptions() {
        return List.of(
                Interception.of(CUDART, "cudaLaunchKernel", 6, CallKind.LAUNCH, JavaCppLaunchAdvice.class),
                Interception.of(CUDART, "cudaGraphLaunch", 2, CallKind.GRAPH_LAUNCH, JavaCppHandleOnStreamAdvice.class),
                Interception.of(CUDART, "cudaMemcpyAsync", 5, CallKind.COPY, JavaCppCopyAdvice.class),
                Interception.of(CUDART, "cudaMemsetAsync", 4, CallKind.MEMSET, JavaCppMemsetAdvice.class),
                Interception.of(CUDART, "cudaStreamCreateWithPriority", 3, CallKind.STREAM_CREATE,
                        JavaCppStreamCreateAdvice.class),
                Interception.of(CUDART, "cudaStreamSynchronize", 1, CallKind.SYNC, JavaCppStreamAdvice.class),
                Interception.of(CUDART, "cudaDeviceSynchronize", 0, CallKind.SYNC, JavaCppNoArgAdvice.class),
                Interception.of(CUDART, "cudaEventRecord", 2, CallKind.EVENT_RECORD, JavaCppHandleOnStreamAdvice.class),
                Interception.of(CUDART, "cudaStreamWaitEvent", 3, CallKind.STREAM_WAIT, JavaCppStreamWaitAdvice.class),
                Interception.of(NCCL, "ncclAllReduce", 7, CallKind.COLLECTIVE, JavaCppReduceAdvice.class),
                Interception.of(NCCL, "ncclReduceScatter", 7, CallKind.COLLECTIVE, JavaCppReduceAdvice.class),
                Interception.of(NCCL, "ncclAllGather", 6, CallKind.COLLECTIVE, JavaCppGatherAdvice.class));
    }
}
