package dev.aorta.gpu.blas;

import dev.aorta.gpu.Ffm;
import dev.aorta.gpu.Lazy;
import dev.aorta.gpu.NativeLibrary;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.DeviceBuffer;
import dev.aorta.gpu.cuda.EnqueueCounter;
import dev.aorta.gpu.cuda.Stream;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A cuBLAS (CUDA 13) handle through FFM. Matrices are column-major as cuBLAS expects; a handle issues its
 * work on the stream last given to {@link #setStream} (cuBLAS takes its stream from the handle). A handle is
 * not thread-safe: use one per thread or stream. Each handle owns a workspace from the device allocator, so
 * cuBLAS does not allocate (and synchronize) behind our back.
 */
public final class Cublas implements AutoCloseable {
    static final int COMPUTE_32F = 68;
    static final int COMPUTE_32F_FAST_TF32 = 77;
    private static final int OP_N = 0;
    private static final int OP_T = 1;
    private static final int GEMM_DEFAULT = -1;
    /** Workspace per handle: cuBLAS's recommendation for Hopper is 32 MiB. */
    private static final long WORKSPACE_BYTES = 32L << 20;
    /** The device allocator's owner of the workspaces: library scratch, not anybody's tensors. */
    public static final String WORKSPACE_OWNER = "cuBLAS workspace";

    private static final Lazy<Library> LIBRARY = new Lazy<>(Library::new);

    private final Library lib;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment handle;
    private final MemorySegment alpha;
    private final MemorySegment beta;
    private final DeviceBuffer workspace;
    private long stream;
    private EnqueueCounter enqueues;
    private boolean closed;

    /** The loaded library and its functions (loaded once per process). */
    static final class Library {
        final NativeLibrary lib;
        final MethodHandle create, destroy, setStream, setWorkspace, gemmEx, gemmStridedBatchedEx, statusString,
                getProperty;

        Library() {
            lib = NativeLibrary.load("cuBLAS", "AORTA_CUBLAS_LIBRARY", "libcublas.so.13", "libcublas.so");
            create = lib.function("cublasCreate_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS));
            destroy = lib.function("cublasDestroy_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
            setStream = lib.function("cublasSetStream_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
            setWorkspace = lib.function("cublasSetWorkspace_v2",
                    FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
            gemmEx = lib.function("cublasGemmEx", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT,
                    JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT,
                    ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
            gemmStridedBatchedEx = lib.function("cublasGemmStridedBatchedEx", FunctionDescriptor.of(JAVA_INT,
                    JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT,
                    JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT,
                    JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT));
            statusString = lib.function("cublasGetStatusString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
            getProperty = lib.function("cublasGetProperty", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        }

        void check(String call, int status) {
            BlasStatus.check(statusString, call, status);
        }
    }

    static Library library() {
        return LIBRARY.get();
    }

    /** The cuBLAS version as "major.minor.patch" (needs no GPU). */
    public static String version() {
        Library l = library();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            int[] parts = new int[3];
            for (int i = 0; i < 3; i++) {
                l.check("cublasGetProperty", (int) l.getProperty.invokeExact(i, v));
                parts[i] = v.get(JAVA_INT, 0);
            }
            return parts[0] + "." + parts[1] + "." + parts[2];
        } catch (Throwable t) {
            throw Ffm.callFailed("cublasGetProperty", t);
        }
    }

    public static NativeLibrary nativeLibrary() {
        return library().lib;
    }

    /** A handle on {@code device} issuing on {@code stream}. */
    public Cublas(CudaDevice device, Stream stream) {
        this.lib = library();
        device.makeCurrent();
        MemorySegment h = arena.allocate(ADDRESS);
        try {
            lib.check("cublasCreate_v2", (int) lib.create.invokeExact(h));
        } catch (Throwable t) {
            arena.close();
            throw Ffm.callFailed("cublasCreate_v2", t);
        }
        this.handle = h.get(ADDRESS, 0);
        this.alpha = arena.allocate(JAVA_FLOAT);
        this.beta = arena.allocate(JAVA_FLOAT);
        this.workspace = device.allocator().allocate(WORKSPACE_BYTES, WORKSPACE_OWNER);
        setStream(stream);
    }

    /** Work issued from now on goes to {@code s}. The workspace is re-attached, as cuBLAS requires after a stream change. */
    public void setStream(Stream s) {
        try {
            lib.check("cublasSetStream_v2", (int) lib.setStream.invokeExact(handle.address(), s.address()));
            lib.check("cublasSetWorkspace_v2", (int) lib.setWorkspace.invokeExact(handle.address(),
                    workspace.address(), WORKSPACE_BYTES));
        } catch (Throwable t) {
            throw Ffm.callFailed("cublasSetStream_v2", t);
        }
        this.stream = s.address();
        this.enqueues = s.enqueues();
    }

    /** The native stream the handle issues on. */
    public long streamAddress() {
        return stream;
    }

    /**
     * C = alpha·op(A)·op(B) + beta·C, column-major; A is m×k (k×m if transposed), B k×n, C m×n, C of
     * {@code p}'s output type (fp32 for the mixed FP16_FP32 and BF16_FP32). Device addresses; leading
     * dimensions are the rows of each stored matrix.
     */
    public void gemm(GemmPrecision p, boolean transA, boolean transB, int m, int n, int k, float alphaValue,
                     long a, int lda, long b, int ldb, float betaValue, long c, int ldc) {
        alpha.set(JAVA_FLOAT, 0, alphaValue);
        beta.set(JAVA_FLOAT, 0, betaValue);
        int rc;
        try {
            rc = (int) lib.gemmEx.invokeExact(handle.address(), transA ? OP_T : OP_N, transB ? OP_T : OP_N, m, n, k,
                    alpha, a, p.dataType, lda, b, p.dataType, ldb, beta, c, p.outputType, ldc, p.computeType,
                    GEMM_DEFAULT);
        } catch (Throwable t) {
            throw Ffm.callFailed("cublasGemmEx", t);
        }
        if (rc != 0) { // the message only on failure: built per call, it cost more than the rest of the Java side
            lib.check("cublasGemmEx(" + p + ", " + m + "x" + n + "x" + k + ")", rc);
        }
        enqueues.increment();
    }

    /** C = A·B for square-or-not matrices stored without transposition (lda = m, ldb = k, ldc = m). */
    public void gemm(GemmPrecision p, int m, int n, int k, DeviceBuffer a, DeviceBuffer b, DeviceBuffer c) {
        requireBytes(a, (long) m * k * p.elementBytes, "A");
        requireBytes(b, (long) k * n * p.elementBytes, "B");
        requireBytes(c, (long) m * n * p.outputBytes(), "C");
        gemm(p, false, false, m, n, k, 1f, a.address(), m, b.address(), k, 0f, c.address(), m);
    }

    /**
     * {@code batch} independent GEMMs C_i = alpha·op(A_i)·op(B_i) + beta·C_i, column-major as {@link #gemm}, whose
     * matrices lie {@code strideX} elements apart.
     */
    public void gemmStridedBatched(GemmPrecision p, boolean transA, boolean transB, int m, int n, int k,
                                   float alphaValue, long a, int lda, long strideA, long b, int ldb, long strideB,
                                   float betaValue, long c, int ldc, long strideC, int batch) {
        alpha.set(JAVA_FLOAT, 0, alphaValue);
        beta.set(JAVA_FLOAT, 0, betaValue);
        int rc;
        try {
            rc = (int) lib.gemmStridedBatchedEx.invokeExact(handle.address(), transA ? OP_T : OP_N,
                    transB ? OP_T : OP_N, m, n, k, alpha, a, p.dataType, lda, strideA, b, p.dataType, ldb, strideB,
                    beta, c, p.outputType, ldc, strideC, batch, p.computeType, GEMM_DEFAULT);
        } catch (Throwable t) {
            throw Ffm.callFailed("cublasGemmStridedBatchedEx", t);
        }
        if (rc != 0) {
            lib.check("cublasGemmStridedBatchedEx(" + p + ", " + m + "x" + n + "x" + k + " x" + batch + ")", rc);
        }
        enqueues.increment();
    }

    /** {@code batch} independent GEMMs whose matrices lie {@code strideX} elements apart. */
    public void gemmStridedBatched(GemmPrecision p, int m, int n, int k, long a, long strideA, long b, long strideB,
                                   long c, long strideC, int batch) {
        alpha.set(JAVA_FLOAT, 0, 1f);
        beta.set(JAVA_FLOAT, 0, 0f);
        int rc;
        try {
            rc = (int) lib.gemmStridedBatchedEx.invokeExact(handle.address(), OP_N, OP_N, m, n, k, alpha, a,
                    p.dataType, m, strideA, b, p.dataType, k, strideB, beta, c, p.outputType, m, strideC, batch,
                    p.computeType, GEMM_DEFAULT);
        } catch (Throwable t) {
            throw Ffm.callFailed("cublasGemmStridedBatchedEx", t);
        }
        if (rc != 0) {
            lib.check("cublasGemmStridedBatchedEx(" + p + ", " + m + "x" + n + "x" + k + " x" + batch + ")", rc);
        }
        enqueues.increment();
    }

    private static void requireBytes(DeviceBuffer buf, long bytes, String which) {
        if (buf.bytes() < bytes) {
            throw new IllegalArgumentException("GEMM matrix " + which + " needs " + bytes + " bytes; its buffer has "
                    + buf.bytes());
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            try {
                lib.check("cublasDestroy_v2", (int) lib.destroy.invokeExact(handle.address()));
            } catch (Throwable t) {
                throw Ffm.callFailed("cublasDestroy_v2", t);
            } finally {
                workspace.close();
                arena.close();
            }
        }
    }
}
