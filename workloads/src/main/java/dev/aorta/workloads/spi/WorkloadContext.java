package dev.aorta.workloads.spi;

import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.GpuBuffer;
import dev.aorta.workloads.session.GemmSpec;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuStream;
import dev.aorta.workloads.session.KernelModule;
import dev.aorta.workloads.session.PreparedGemm;
import dev.aorta.workloads.session.PreparedLaunch;

import java.util.List;

/** What the harness gives a workload in {@link Workload#setup}. */
public interface WorkloadContext {

    GpuSession gpu();

    /** The workload streams, in index order, created with the run's priority mode. */
    List<GpuStream> streams();

    /** The {@code --dtype} of the run (fp32 unless given). */
    DType dtype();

    /** An integer {@code --param} (checked against its declaration in {@link Workload#parameters()}), or its default. */
    int intParameter(String name);

    /** A choice {@code --param} (one of its declared words), or its default. */
    String choiceParameter(String name);

    /**
     * Loads a kernel source, compiled once per session: a bundled one ({@code dev/aorta/workloads/kernels/<resource>}),
     * else {@code kernels/<resource>} from the class path the command runs with (a plugin's own jar included).
     */
    KernelModule kernels(String resource);

    /** Allocates device memory that the harness frees after the run (contents undefined). */
    GpuBuffer allocate(long bytes);

    /** A buffer of {@code elements} values of {@code dtype}, uniform in [-1, 1), reproducible by seed; freed after the run. */
    GpuBuffer randomBuffer(long elements, DType dtype, int seed);

    /** Wraps a prepared launch into an {@link Op}; {@code label} names the kernel class in results. */
    Op op(String label, GpuStream stream, PreparedLaunch launch);

    /** Wraps a prepared GEMM into an {@link Op}. */
    Op op(String label, GpuStream stream, PreparedGemm gemm);

    /** Wraps any enqueue that is not a kernel launch (a copy) into an {@link Op}; it must not wait for the device. */
    Op enqueueOp(String label, GpuStream stream, Runnable enqueue);

    /** Shortcut: prepares a GEMM on fresh random operands of {@code spec} and wraps it. */
    default Op gemm(String label, GemmSpec spec, GpuStream stream, int seed) {
        GpuBuffer a = randomBuffer(spec.bytesA() / spec.dtype().bytes(), spec.dtype(), seed);
        GpuBuffer b = randomBuffer(spec.bytesB() / spec.dtype().bytes(), spec.dtype(), seed + 1);
        GpuBuffer c = allocate(spec.bytesC());
        return op(label, stream, gpu().prepareGemm(spec, a, b, c, stream));
    }

    /** All streams' indices whose role is {@code role}. */
    List<Integer> streamsWithRole(String role);
}
