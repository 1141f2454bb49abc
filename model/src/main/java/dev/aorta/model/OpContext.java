package dev.aorta.model;

import dev.aorta.gpu.blas.Cublas;
import dev.aorta.gpu.blas.CublasLt;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.Stream;

/**
 * What the ops of one thread share on one device: the kernels, a cuBLAS and a cuBLASLt handle, and the
 * autocast mode. Every op takes its stream from the caller; {@link #blasOn} points the cuBLAS handle at it
 * before a GEMM (cuBLASLt takes the stream per call). Not thread-safe (cuBLAS handles are not): one context
 * per thread.
 *
 * <p>Autocast, like torch.autocast: with {@link #autocast(DType)} set to bf16 or fp16, the ops that torch
 * autocasts to lower precision (linear layers) run their GEMMs on 16-bit copies of their operands with fp32
 * accumulation; every tensor the caller sees, and all other ops, stay fp32.
 *
 * <p>{@link #convTf32(boolean)}, like torch.backends.cudnn.allow_tf32, lets fp32 convolutions (outside autocast)
 * round their GEMM operands to TF32 on the tensor cores. torch allows it by default, so PyTorch's fp32
 * convolutions run in TF32 unless told otherwise; here it is off by default, so that fp32 results stay within
 * fp32 rounding of the float64 references.
 */
public final class OpContext implements AutoCloseable {
    private final CudaDevice device;
    private final Kernels kernels;
    private final Cublas cublas;
    /** Null on a device; for a {@link #meta} context, where its requests go. */
    private final AllocationMeter meter;
    private CublasLt cublasLt;
    private DType autocast;
    private boolean convTf32;
    private ParameterStorage parameterStorage = ParameterStorage.OWN;
    private long philoxBase;

    public OpContext(CudaDevice device, Stream initialStream) {
        this.device = device;
        this.kernels = new Kernels(device);
        this.cublas = new Cublas(device, initialStream);
        this.meter = null;
    }

    private OpContext(AllocationMeter meter) {
        this.device = null;
        this.kernels = null;
        this.cublas = null;
        this.meter = meter;
    }

    /**
     * A context without a device, for counting what layers allocate: {@link #empty} hands out meta tensors and
     * records each request in {@code meter}. Layers can be made and their activations and optimizer state built
     * in it (parameters are not initialised, see {@link dev.aorta.model.ops.Parameter#init}); nothing can run.
     * Memory that layers allocate only on first use in a pass, they allocate at once here where the pass would
     * (see {@link dev.aorta.model.ops.AutocastCopy}), so that the meter sees it.
     */
    public static OpContext meta(AllocationMeter meter) {
        return new OpContext(java.util.Objects.requireNonNull(meter, "meter"));
    }

    /** Whether this is a {@link #meta} context (no device). */
    public boolean isMeta() {
        return meter != null;
    }

    public CudaDevice device() {
        return device;
    }

    public Kernels kernels() {
        return kernels;
    }

    /** The cuBLAS handle, issuing on {@code stream} (re-pointed only when the stream changes). */
    public Cublas blasOn(Stream stream) {
        if (cublas.streamAddress() != stream.address()) {
            cublas.setStream(stream);
        }
        return cublas;
    }

    /** The cuBLASLt handle, made on first use (fp32-only work never loads libcublasLt). */
    public CublasLt blasLt() {
        if (cublasLt == null) {
            cublasLt = new CublasLt(device);
        }
        return cublasLt;
    }

    /** bf16 or fp16 to autocast the GEMMs, or null for fp32 throughout (the default). */
    public void autocast(DType dtype) {
        if (dtype != null && dtype != DType.BF16 && dtype != DType.FP16) {
            throw new IllegalArgumentException("autocast to " + dtype + "; expected bf16, fp16 or none");
        }
        this.autocast = dtype;
    }

    /** The autocast dtype, or null. */
    public DType autocast() {
        return autocast;
    }

    /** Whether fp32 convolutions may use TF32 tensor cores (false by default). */
    public void convTf32(boolean allowed) {
        this.convTf32 = allowed;
    }

    public boolean convTf32() {
        return convTf32;
    }

    /** Where layers made from now on put their parameters ({@link ParameterStorage#OWN} by default). */
    public void parameterStorage(ParameterStorage storage) {
        this.parameterStorage = storage;
    }

    /** A new fp32 parameter for op {@code op}, placed by the current {@link ParameterStorage}. */
    public dev.aorta.model.ops.Parameter newParameter(String op, String name, int... shape) {
        return parameterStorage.create(this, op, name, shape);
    }

    /**
     * For CUDA graph replay: from now on every dropout draws at Philox offset (the 64-bit value at device address
     * {@code deviceAddress}) + (the offset it is given), so a graph captured once draws new masks each replay when
     * the host advances that value (see {@link GraphScalars}). 0 turns it off: offsets are then the ones given.
     */
    public void philoxBaseFrom(long deviceAddress) {
        this.philoxBase = deviceAddress;
    }

    /** The device address of the Philox base offset, or 0 when dropout offsets are used as given. */
    public long philoxBase() {
        return philoxBase;
    }

    /** A new tensor for op {@code op}; see {@link Tensor#empty}. */
    public Tensor empty(String op, String what, DType dtype, int... shape) {
        if (meter != null) {
            meter.record(op, what, dtype, shape);
            return Tensor.meta(dtype, shape);
        }
        return Tensor.empty(device, op, what, dtype, shape);
    }

    @Override
    public void close() {
        if (meter != null) {
            return;
        }
        if (cublasLt != null) {
            cublasLt.close();
        }
        cublas.close();
        kernels.close();
    }
}
