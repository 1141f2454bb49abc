package dev.aorta.agent.plugins;

import dev.aorta.agent.advice.CollectiveAdvice;
import dev.aorta.agent.advice.GatherAdvice;
import dev.aorta.agent.advice.KernelLaunchAdvice;
import dev.aorta.agent.advice.StreamArgumentGemmAdvice;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import dev.aorta.agent.spi.InterceptionPlugin;

import java.util.List;

/**
 * The project's own FFM bindings ({@code dev.aorta.gpu}, the aorta-gpu module), so that our workloads are
 * visible too: the hot launch path, cuBLAS GEMMs (stream = last {@code long} argument) and NCCL
 * collectives (which {@code bind-collectives} can move to the comm stream).
 */
public final class AortaGpuPlugin implements InterceptionPlugin {
    static final String LAUNCH = "dev.aorta.gpu.cuda.KernelLaunch";
    static final String CUBLAS = "dev.aorta.gpu.blas.Cublas";
    static final String NCCL = "dev.aorta.gpu.nccl.NcclComm";
    static final List<String> LAUNCH_FIELDS = List.of("function", "gridX", "gridY", "gridZ", "blockX", "blockY",
            "blockZ", "sharedMemBytes", "stream");

    @Override
    public String name() {
        return "aorta-gpu";
    }

    @Override
    public String probeClass() {
        return LAUNCH;
    }

    @Override
    public List<String> requiredFields(String type) {
        return type.equals(LAUNCH) ? LAUNCH_FIELDS : List.of();
    }

    @Override
    public List<Interception> interceptions() {
        return List.of(
                Interception.of(LAUNCH, "launch", 0, CallKind.LAUNCH, KernelLaunchAdvice.class),
                Interception.of(CUBLAS, "sgemm", -1, CallKind.GEMM, StreamArgumentGemmAdvice.class),
                Interception.of(CUBLAS, "dgemm", -1, CallKind.GEMM, StreamArgumentGemmAdvice.class),
                Interception.of(CUBLAS, "hgemm", -1, CallKind.GEMM, StreamArgumentGemmAdvice.class),
                Interception.of(CUBLAS, "gemmEx", -1, CallKind.GEMM, StreamArgumentGemmAdvice.class),
                Interception.of(NCCL, "allReduce", 6, CallKind.COLLECTIVE, CollectiveAdvice.class),
                Interception.of(NCCL, "reduceScatter", 6, CallKind.COLLECTIVE, CollectiveAdvice.class),
                Interception.of(NCCL, "allGather", 5, CallKind.COLLECTIVE, GatherAdvice.class));
    }
}
