package dev.aorta.agent.plugins;

import dev.aorta.agent.advice.GemmAdvice;
import dev.aorta.agent.advice.HandleOnStreamAdvice;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import dev.aorta.agent.spi.InterceptionPlugin;

import java.util.ArrayList;
import java.util.List;

/**
 * JCublas2 ({@code jcuda.jcublas.JCublas2}): {@code cublasSetStream} binds a handle to a stream, and the
 * GEMM family is attributed to the stream its handle was last bound to.
 */
public final class JCublas2Plugin implements InterceptionPlugin {
    static final String CUBLAS = "jcuda.jcublas.JCublas2";
    /** JCublas2 12.0.0's GEMM family (all start with handle, transa, transb, m, n, k). */
    static final List<String> GEMMS = List.of("cublasSgemm", "cublasDgemm", "cublasCgemm", "cublasZgemm",
            "cublasSgemmEx", "cublasCgemmEx", "cublasGemmEx", "cublasSgemmBatched", "cublasDgemmBatched",
            "cublasCgemmBatched", "cublasZgemmBatched", "cublasGemmBatchedEx", "cublasSgemmStridedBatched",
            "cublasDgemmStridedBatched", "cublasCgemmStridedBatched", "cublasZgemmStridedBatched",
            "cublasGemmStridedBatchedEx");

    @Override
    public String name() {
        return "jcublas2";
    }

    @Override
    public String probeClass() {
        return CUBLAS;
    }

    @Override
    public List<String> requiredMethods() {
        return List.of("cublasSetStream/2");
    }

    @Override
    public List<Interception> interceptions() {
        List<Interception> out = new ArrayList<>();
        out.add(Interception.of(CUBLAS, "cublasSetStream", 2, CallKind.SET_STREAM, HandleOnStreamAdvice.class));
        for (String g : GEMMS) {
            out.add(Interception.of(CUBLAS, g, -1, CallKind.GEMM, GemmAdvice.class));
        }
        return out;
    }
}
