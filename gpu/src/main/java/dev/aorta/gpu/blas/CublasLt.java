package dev.aorta.gpu.blas;

import dev.aorta.gpu.Ffm;
import dev.aorta.gpu.GpuException;
import dev.aorta.gpu.Lazy;
import dev.aorta.gpu.NativeLibrary;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.DeviceBuffer;
import dev.aorta.gpu.cuda.Stream;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.HashMap;
import java.util.Map;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A cuBLASLt (CUDA 13) handle through FFM: column-major matmuls D = alpha·op(A)·op(B) + beta·C (C is D, or
 * another matrix of D's layout) with A and B in one precision and C/D in another (bf16 or fp16 operands, fp32
 * output and accumulation; or fp32 throughout), and the epilogues that fuse a bias, a GELU or a bias gradient into
 * the GEMM. Descriptors, layouts and the
 * heuristic's algorithm are made once per shape and kept ({@link #plans()} counts them); pointers (bias, aux)
 * are set per call. Not thread-safe: one handle per thread.
 *
 * <p>cuBLASLt's GELU epilogues compute the tanh approximation of GELU, not the erf form.
 */
public final class CublasLt implements AutoCloseable {
    private static final int OP_N = 0;
    private static final int OP_T = 1;
    private static final int DESC_TRANSA = 3;
    private static final int DESC_TRANSB = 4;
    private static final int DESC_EPILOGUE = 7;
    private static final int DESC_BIAS_POINTER = 8;
    private static final int DESC_AUX_POINTER = 10;
    private static final int DESC_AUX_LD = 11;
    private static final int DESC_BIAS_DATA_TYPE = 26;
    private static final int PREF_MAX_WORKSPACE_BYTES = 1;
    private static final int STATUS_NOT_SUPPORTED = 15;
    private static final int ALGO_BYTES = 64;
    private static final int HEURISTIC_RESULT_BYTES = 96;
    private static final int HEURISTIC_STATE_OFFSET = 72;
    /** The device allocator's owner of the workspaces: library scratch, not anybody's tensors. */
    public static final String WORKSPACE_OWNER = "cuBLASLt workspace";
    /** cuBLAS's recommended workspace on Hopper. */
    private static final long WORKSPACE_BYTES = 32L << 20;

    /** cublasLtEpilogue_t. The GELU variants are the tanh approximation. */
    public enum Epilogue {
        DEFAULT(1), BIAS(4), GELU_BIAS(36), GELU_AUX_BIAS(164), DGELU(192), DGELU_BGRAD(208), BGRADA(256),
        BGRADB(512);

        final int value;

        Epilogue(int value) {
            this.value = value;
        }

        boolean usesBias() {
            return this == BIAS || this == GELU_BIAS || this == GELU_AUX_BIAS || this == DGELU_BGRAD
                    || this == BGRADA || this == BGRADB;
        }

        boolean usesAux() {
            return this == GELU_AUX_BIAS || this == DGELU || this == DGELU_BGRAD;
        }
    }

    private static final Lazy<Library> LIBRARY = new Lazy<>(Library::new);

    static final class Library {
        final NativeLibrary lib;
        final MethodHandle create, destroy, descCreate, descSet, descDestroy, layoutCreate, layoutDestroy, prefCreate,
                prefSet, prefDestroy, heuristic, matmul, statusString;

        Library() {
            lib = NativeLibrary.load("cuBLASLt", "AORTA_CUBLASLT_LIBRARY", "libcublasLt.so.13", "libcublasLt.so");
            create = lib.function("cublasLtCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS));
            destroy = lib.function("cublasLtDestroy", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
            descCreate = lib.function("cublasLtMatmulDescCreate",
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
            descSet = lib.function("cublasLtMatmulDescSetAttribute",
                    FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
            descDestroy = lib.function("cublasLtMatmulDescDestroy", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
            layoutCreate = lib.function("cublasLtMatrixLayoutCreate",
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
            layoutDestroy = lib.function("cublasLtMatrixLayoutDestroy", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
            prefCreate = lib.function("cublasLtMatmulPreferenceCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS));
            prefSet = lib.function("cublasLtMatmulPreferenceSetAttribute",
                    FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
            prefDestroy = lib.function("cublasLtMatmulPreferenceDestroy",
                    FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
            heuristic = lib.function("cublasLtMatmulAlgoGetHeuristic", FunctionDescriptor.of(JAVA_INT, JAVA_LONG,
                    JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS));
            matmul = lib.function("cublasLtMatmul", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS,
                    JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                    ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG));
            statusString = lib.function("cublasLtGetStatusString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        }

        void check(String call, int status) {
            BlasStatus.check(statusString, call, status);
        }
    }

    /** What fixes a plan: everything but the pointers and the scalars. */
    private record Key(GemmPrecision ab, GemmPrecision cd, boolean transA, boolean transB, int m, int n, int k,
                       int lda, int ldb, int ldd, Epilogue epilogue, int auxLd) {
    }

    /** A cached descriptor set and its algorithm (null: cuBLASLt has none for the key). */
    private record Plan(long desc, long a, long b, long d, MemorySegment algo) {
    }

    private final Library lib;
    private final Arena arena = Arena.ofShared();
    private final long handle;
    private final CudaDevice device;
    /**
     * One workspace per stream: two matmuls in flight on two streams must not share scratch memory (torch keeps
     * its cuBLASLt workspace per stream for the same reason). Made on a stream's first matmul.
     */
    private final Map<Long, DeviceBuffer> workspaces = new HashMap<>();
    /** The last stream's workspace, so that a run of matmuls on one stream looks nothing up (and boxes no key). */
    private long lastStream;
    private DeviceBuffer lastWorkspace;
    private final MemorySegment alpha;
    private final MemorySegment beta;
    private final MemorySegment scratch;
    private final Map<Key, Plan> plans = new HashMap<>();
    private boolean closed;

    public CublasLt(CudaDevice device) {
        this.lib = LIBRARY.get();
        device.makeCurrent();
        MemorySegment h = arena.allocate(ADDRESS);
        try {
            lib.check("cublasLtCreate", (int) lib.create.invokeExact(h));
        } catch (Throwable t) {
            arena.close();
            throw Ffm.callFailed("cublasLtCreate", t);
        }
        this.handle = h.get(ADDRESS, 0).address();
        this.device = device;
        this.alpha = arena.allocate(JAVA_FLOAT);
        this.beta = arena.allocate(JAVA_FLOAT);
        this.scratch = arena.allocate(JAVA_LONG);
    }

    public static NativeLibrary nativeLibrary() {
        return LIBRARY.get().lib;
    }

    /**
     * D = alpha·op(A)·op(B) + beta·D, then the epilogue, on {@code s}; column-major: op(A) is m×k, op(B) k×n,
     * D m×n. A and B are {@code ab} (bf16, fp16 or fp32), D is {@code cd}; fp32 accumulation.
     * {@code bias} (the epilogue's bias, or where BGRAD writes its gradient: length m, {@code cd}'s type) and
     * {@code aux} (GELU's pre-activation, m×n with leading dimension {@code auxLd}) are 0 where unused.
     *
     * @return false, launching nothing, when cuBLASLt has no algorithm for this shape and layout (odd leading
     *     dimensions of 16-bit matrices can have none); the caller then takes another path
     */
    public boolean matmul(Stream s, GemmPrecision ab, GemmPrecision cd, boolean transA, boolean transB, int m, int n,
                       int k, float alphaValue, long a, int lda, long b, int ldb, float betaValue, long d, int ldd,
                       Epilogue epilogue, long bias, long aux, int auxLd) {
        return matmul(s, ab, cd, transA, transB, m, n, k, alphaValue, a, lda, b, ldb, betaValue, d, d, ldd, epilogue,
                bias, aux, auxLd);
    }

    /**
     * As {@link #matmul(Stream, GemmPrecision, GemmPrecision, boolean, boolean, int, int, int, float, long, int,
     * long, int, float, long, int, Epilogue, long, long, int)} with C apart from D (same type and layout):
     * D = alpha·op(A)·op(B) + beta·C, then the epilogue; a residual added in the same launch (C the residual).
     */
    public boolean matmul(Stream s, GemmPrecision ab, GemmPrecision cd, boolean transA, boolean transB, int m, int n,
                       int k, float alphaValue, long a, int lda, long b, int ldb, float betaValue, long c, long d,
                       int ldd, Epilogue epilogue, long bias, long aux, int auxLd) {
        if (epilogue.usesBias() != (bias != 0) || epilogue.usesAux() != (aux != 0)) {
            throw new IllegalArgumentException("cuBLASLt epilogue " + epilogue + " needs " + (epilogue.usesBias()
                    ? "a" : "no") + " bias and " + (epilogue.usesAux() ? "an" : "no") + " aux pointer");
        }
        Key key = new Key(ab, cd, transA, transB, m, n, k, lda, ldb, ldd, epilogue, epilogue.usesAux() ? auxLd : 0);
        Plan p = plans.get(key);
        if (p == null) {
            p = plan(key);
            plans.put(key, p);
        }
        if (p.algo() == null) {
            return false;
        }
        alpha.set(JAVA_FLOAT, 0, alphaValue);
        beta.set(JAVA_FLOAT, 0, betaValue);
        int rc;
        try {
            if (bias != 0) {
                setDesc(p.desc(), DESC_BIAS_POINTER, bias);
            }
            if (aux != 0) {
                setDesc(p.desc(), DESC_AUX_POINTER, aux);
            }
            rc = (int) lib.matmul.invokeExact(handle, p.desc(), alpha, a, p.a(), b, p.b(), beta, c, p.d(), d, p.d(),
                    p.algo(), workspaceFor(s).address(), WORKSPACE_BYTES, s.address());
        } catch (Throwable t) {
            throw Ffm.callFailed("cublasLtMatmul", t);
        }
        if (rc != 0) { // the message only on failure: describing the key per call cost ~1 KB of garbage
            lib.check("cublasLtMatmul(" + describe(key) + ")", rc);
        }
        s.enqueues().increment();
        return true;
    }

    private DeviceBuffer workspaceFor(Stream s) {
        if (lastWorkspace == null || s.address() != lastStream) {
            lastWorkspace = workspaces.computeIfAbsent(s.address(),
                    k -> device.allocator().allocate(WORKSPACE_BYTES, WORKSPACE_OWNER));
            lastStream = s.address();
        }
        return lastWorkspace;
    }

    /** Shapes planned so far, with or without an algorithm (each ran the heuristic once). */
    public int plans() {
        return plans.size();
    }

    private Plan plan(Key key) {
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment out = tmp.allocate(ADDRESS);
            lib.check("cublasLtMatmulDescCreate", (int) lib.descCreate.invokeExact(out, Cublas.COMPUTE_32F,
                    GemmPrecision.CudaDataType.R_32F));
            long desc = out.get(ADDRESS, 0).address();
            setDescInt(desc, DESC_TRANSA, key.transA() ? OP_T : OP_N);
            setDescInt(desc, DESC_TRANSB, key.transB() ? OP_T : OP_N);
            setDescInt(desc, DESC_EPILOGUE, key.epilogue().value);
            if (key.epilogue().usesBias()) {
                setDescInt(desc, DESC_BIAS_DATA_TYPE, key.cd().dataType);
            }
            if (key.epilogue().usesAux()) {
                setDesc(desc, DESC_AUX_LD, key.auxLd());
            }
            long la = layout(tmp, key.ab(), key.transA() ? key.k() : key.m(), key.transA() ? key.m() : key.k(),
                    key.lda());
            long lb = layout(tmp, key.ab(), key.transB() ? key.n() : key.k(), key.transB() ? key.k() : key.n(),
                    key.ldb());
            long ld = layout(tmp, key.cd(), key.m(), key.n(), key.ldd());
            lib.check("cublasLtMatmulPreferenceCreate", (int) lib.prefCreate.invokeExact(out));
            long pref = out.get(ADDRESS, 0).address();
            MemorySegment ws = tmp.allocate(JAVA_LONG);
            ws.set(JAVA_LONG, 0, WORKSPACE_BYTES);
            lib.check("cublasLtMatmulPreferenceSetAttribute", (int) lib.prefSet.invokeExact(pref,
                    PREF_MAX_WORKSPACE_BYTES, ws, 8L));
            MemorySegment result = tmp.allocate(HEURISTIC_RESULT_BYTES, 8);
            MemorySegment count = tmp.allocate(JAVA_INT);
            int rc = (int) lib.heuristic.invokeExact(handle, desc, la, lb, ld, ld, pref, 1, result, count);
            lib.check("cublasLtMatmulPreferenceDestroy", (int) lib.prefDestroy.invokeExact(pref));
            if (rc == STATUS_NOT_SUPPORTED || rc == 0 && (count.get(JAVA_INT, 0) < 1
                    || result.get(JAVA_INT, HEURISTIC_STATE_OFFSET) != 0)) {
                return new Plan(desc, la, lb, ld, null);
            }
            lib.check("cublasLtMatmulAlgoGetHeuristic(" + describe(key) + ")", rc);
            MemorySegment algo = arena.allocate(ALGO_BYTES, 8);
            algo.copyFrom(result.asSlice(0, ALGO_BYTES));
            return new Plan(desc, la, lb, ld, algo);
        } catch (GpuException e) {
            throw e;
        } catch (Throwable t) {
            throw Ffm.callFailed("cuBLASLt plan for " + describe(key), t);
        }
    }

    private long layout(Arena tmp, GemmPrecision type, int rows, int cols, int ld) throws Throwable {
        MemorySegment out = tmp.allocate(ADDRESS);
        lib.check("cublasLtMatrixLayoutCreate", (int) lib.layoutCreate.invokeExact(out, type.dataType, (long) rows,
                (long) cols, (long) ld));
        return out.get(ADDRESS, 0).address();
    }

    private void setDescInt(long desc, int attr, int value) throws Throwable {
        scratch.set(JAVA_INT, 0, value);
        int rc = (int) lib.descSet.invokeExact(desc, attr, scratch, 4L);
        if (rc != 0) {
            lib.check("cublasLtMatmulDescSetAttribute(" + attr + ")", rc);
        }
    }

    private void setDesc(long desc, int attr, long value) throws Throwable {
        scratch.set(JAVA_LONG, 0, value);
        int rc = (int) lib.descSet.invokeExact(desc, attr, scratch, 8L); // per call for the bias and aux pointers
        if (rc != 0) {
            lib.check("cublasLtMatmulDescSetAttribute(" + attr + ")", rc);
        }
    }

    private static String describe(Key k) {
        return k.ab() + " x " + k.ab() + " -> " + k.cd() + ", " + (k.transA() ? "T" : "N") + (k.transB() ? "T" : "N")
                + " " + k.m() + "x" + k.n() + "x" + k.k() + ", epilogue " + k.epilogue();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            for (Plan p : plans.values()) {
                lib.check("cublasLtMatmulDescDestroy", (int) lib.descDestroy.invokeExact(p.desc()));
                for (long l : new long[] {p.a(), p.b(), p.d()}) {
                    lib.check("cublasLtMatrixLayoutDestroy", (int) lib.layoutDestroy.invokeExact(l));
                }
            }
            lib.check("cublasLtDestroy", (int) lib.destroy.invokeExact(handle));
        } catch (GpuException e) {
            throw e;
        } catch (Throwable t) {
            throw Ffm.callFailed("cublasLtDestroy", t);
        } finally {
            workspaces.values().forEach(DeviceBuffer::close);
            arena.close();
        }
    }
}
