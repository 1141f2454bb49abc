package dev.aorta.agent.plugins;

import dev.aorta.agent.advice.CollectiveAdvice;
import dev.aorta.agent.advice.CublasGemmAdvice;
import dev.aorta.agent.advice.CublasStridedGemmAdvice;
import dev.aorta.agent.advice.CublasStridedGemmTransposedAdvice;
import dev.aorta.agent.advice.GatherAdvice;
import dev.aorta.agent.advice.KernelLaunchAdvice;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import dev.aorta.agent.spi.InterceptionPlugin;

import java.util.List;

/**
 * The project's own FFM bindings ({@code dev.aorta.gpu}, the aorta-gpu module), so that our workloads are
 * visible too: the hot launch path {@code KernelLaunch#launch()}, cuBLAS GEMMs (on the handle's stream)
 * and NCCL collectives (which {@code bind-collectives} can move to the comm stream). Their streams and
 * shapes are read from the binding's fields, whose presence is checked before instrumenting.
 */
public final class AortaGpuPlugin implements InterceptionPlugin {
    static final String LAUNCH = "dev.aorta.gpu.cuda.KernelLaunch";
    static final String CUBLAS = "dev.aorta.gpu.blas.Cublas";
    static final String NCCL = "dev.aorta.gpu.nccl.NcclComm";

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
        return switch (type) {
            case LAUNCH -> List.of("function", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "sharedBytes",
                    "stream");
            case CUBLAS -> List.of("stream");
            case NCCL -> List.of("comm");
            default -> List.of();
        };
    }

    @Override
    public List<Interception> interceptions() {
        return List.of(
                Interception.of(LAUNCH, "launch", 0, CallKind.LAUNCH, KernelLaunchAdvice.class),
                // the 14-argument gemm; the 7-argument convenience overload calls it (recorded once)
                Interception.of(CUBLAS, "gemm", 14, CallKind.GEMM, CublasGemmAdvice.class),
                Interception.of(CUBLAS, "gemmStridedBatched", 11, CallKind.GEMM, CublasStridedGemmAdvice.class),
                // the 18-argument one (transposes, leading dimensions) is a separate implementation, not a caller
                Interception.of(CUBLAS, "gemmStridedBatched", 18, CallKind.GEMM,
                        CublasStridedGemmTransposedAdvice.class),
                Interception.of(NCCL, "allReduce", 6, CallKind.COLLECTIVE, CollectiveAdvice.class),
                Interception.of(NCCL, "reduceScatter", 6, CallKind.COLLECTIVE, CollectiveAdvice.class),
                Interception.of(NCCL, "allGather", 5, CallKind.COLLECTIVE, GatherAdvice.class));
    }
}
