package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.DeviceBuffer;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * torch.optim.AdamW over fp32 parameters, all of them in one launch (multi-tensor: each block owns a chunk of
 * one tensor, from a block table built here), with the global gradient norm and clip_grad_norm_'s clipping
 * computed on the device: {@link #step} queues three launches and never waits for the GPU. Unlike
 * clip_grad_norm_, the gradients themselves are left unscaled (the clip factor is applied as they are read).
 * Parameters with a 16-bit copy ({@link Parameter#lowCopy}) get it rewritten in the same pass, so autocast
 * GEMMs read current weights without casting them every step.
 */
public final class AdamW implements AutoCloseable {
    private static final String OP = "adamw";
    private static final int BLOCK = 256;
    /** Elements per block; as CHUNK in adamw.cu. */
    static final int CHUNK = 8192;

    private final OpContext ctx;
    private final double beta1;
    private final double beta2;
    private final double eps;
    private final double weightDecay;
    private final List<Parameter> parameters;
    private final List<Tensor> moments = new ArrayList<>();
    private final DeviceBuffer params;
    private final DeviceBuffer grads;
    private final DeviceBuffer firstMoments;
    private final DeviceBuffer secondMoments;
    private final DeviceBuffer lengths;
    private final DeviceBuffer chunkTensor;
    private final DeviceBuffer chunkStart;
    private final int grid;
    private final Tensor partial;
    private final Tensor norm;
    /** The 16-bit copies' addresses (0: none) and dtypes (1: fp16) as last uploaded, to notice copies made since. */
    private long[] lowAddresses;
    private int[] lowKinds;
    private DeviceBuffer lows;
    private DeviceBuffer lowHalf;
    private final List<DeviceBuffer> retired = new ArrayList<>();
    private int t;

    public AdamW(OpContext ctx, List<Parameter> parameters, double beta1, double beta2, double eps, double weightDecay,
                 Stream s) {
        if (parameters.isEmpty()) {
            throw new IllegalArgumentException(OP + ": no parameters to optimise");
        }
        this.ctx = ctx;
        this.beta1 = beta1;
        this.beta2 = beta2;
        this.eps = eps;
        this.weightDecay = weightDecay;
        this.parameters = List.copyOf(parameters);
        int count = parameters.size();
        long[] p = new long[count];
        long[] g = new long[count];
        long[] m = new long[count];
        long[] v = new long[count];
        long[] n = new long[count];
        List<Integer> blockTensor = new ArrayList<>();
        List<Integer> blockStart = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Parameter par = parameters.get(i);
            if (par.value().dtype() != DType.FP32 || par.grad().dtype() != DType.FP32) {
                throw new IllegalArgumentException(OP + ": parameter " + par.name() + " is " + par.value().dtype()
                        + " with a " + par.grad().dtype() + " gradient, expected fp32 master weights and gradients");
            }
            Tensor mi = ctx.empty(OP, par.name() + " first moment", DType.FP32, par.value().shape());
            Tensor vi = ctx.empty(OP, par.name() + " second moment", DType.FP32, par.value().shape());
            moments.add(mi);
            moments.add(vi);
            n[i] = par.value().numel();
            if (!ctx.isMeta()) { // a meta context only counts the moments: no memory to zero, no addresses
                mi.zero(s);
                vi.zero(s);
                p[i] = par.value().address();
                g[i] = par.grad().address();
                m[i] = mi.address();
                v[i] = vi.address();
            }
            for (long start = 0; start < n[i]; start += CHUNK) {
                blockTensor.add(i);
                blockStart.add((int) start);
            }
        }
        this.params = upload(p);
        this.grads = upload(g);
        this.firstMoments = upload(m);
        this.secondMoments = upload(v);
        this.lengths = upload(n);
        this.chunkTensor = upload(blockTensor.stream().mapToInt(Integer::intValue).toArray());
        this.chunkStart = upload(blockStart.stream().mapToInt(Integer::intValue).toArray());
        this.grid = blockTensor.size();
        this.partial = ctx.empty(OP, "norm partials", DType.FP32, grid);
        this.norm = ctx.empty(OP, "gradient norm", DType.FP32, 1);
    }

    /** Device addresses or lengths as a table the kernels index: little-endian 64-bit words, copied as int pairs. */
    private DeviceBuffer upload(long[] values) {
        int[] words = new int[2 * values.length];
        for (int i = 0; i < values.length; i++) {
            words[2 * i] = (int) values[i];
            words[2 * i + 1] = (int) (values[i] >>> 32);
        }
        return upload(words);
    }

    /** The table's device copy; none in a meta context (a few bytes per parameter, left uncounted). */
    private DeviceBuffer upload(int[] values) {
        if (ctx.isMeta()) {
            return null;
        }
        ctx.device().makeCurrent();
        DeviceBuffer b = ctx.device().allocate(4L * Math.max(1, values.length));
        b.copyFrom(values);
        return b;
    }

    /** Sets every parameter's gradient to zero in one launch (what a per-tensor zeroGrad does in many). */
    public void zeroGrad(Stream s) {
        ctx.kernels().launch("adamw.cu", "zero_grads", grid, BLOCK, s, grads.address(), lengths.address(),
                chunkTensor.address(), chunkStart.address());
    }

    /** Queues the global L2 norm of all gradients into {@link #gradNorm()}'s tensor. */
    public void computeGradNorm(Stream s) {
        ctx.kernels().launch("adamw.cu", "grad_sum_squares", grid, BLOCK, s, grads.address(), lengths.address(),
                chunkTensor.address(), chunkStart.address(), partial);
        ctx.kernels().launch("adamw.cu", "grad_norm_finish", 1, BLOCK, s, partial, grid, norm);
    }

    /**
     * Queues the sum of squares of this optimizer's gradients into {@link #gradNorm()}'s tensor, not yet its
     * root: when the optimizer holds one shard of the gradients, the ranks holding the others add their sums
     * there (an all-reduce) before {@link #finishGradNorm} takes the root of the global sum.
     */
    public void computeGradSumSquares(Stream s) {
        ctx.kernels().launch("adamw.cu", "grad_sum_squares", grid, BLOCK, s, grads.address(), lengths.address(),
                chunkTensor.address(), chunkStart.address(), partial);
        ctx.kernels().launch("adamw.cu", "grad_sum_finish", 1, BLOCK, s, partial, grid, norm);
    }

    /** {@link #gradNorm()} becomes the square root of the (all-reduced) sum of squares it holds. */
    public void finishGradNorm(Stream s) {
        ctx.kernels().launch("adamw.cu", "grad_norm_from_sum", 1, 1, s, norm);
    }

    /** The [1] tensor holding the last computed gradient norm. */
    public Tensor gradNorm() {
        return norm;
    }

    /**
     * One step at learning rate {@code lr}; with {@code maxNorm > 0} the gradients are first clipped to that
     * global norm (the norm is computed here, on {@code s}).
     */
    public void step(double lr, double maxNorm, Stream s) {
        step(lr, maxNorm, 1f, s);
    }

    /**
     * As {@link #step(double, double, Stream)} for gradients that carry a loss scale (fp16,
     * {@link dev.aorta.model.LossScaler}): they are divided by {@code gradScale} as they are read, and the clip
     * uses the norm divided by it.
     */
    public void step(double lr, double maxNorm, float gradScale, Stream s) {
        if (maxNorm > 0) {
            computeGradNorm(s);
        }
        stepWithComputedNorm(lr, maxNorm, gradScale, s);
    }

    /**
     * As {@link #step(double, double, float, Stream)}, but clipping with the norm already in {@link #gradNorm()}
     * ({@link #computeGradNorm}, or a sharded optimizer's {@link #computeGradSumSquares}, all-reduce and
     * {@link #finishGradNorm}).
     */
    public void stepWithComputedNorm(double lr, double maxNorm, float gradScale, Stream s) {
        float[] h = nextStepHyperparameters(lr);
        launchStep("adamw_step", s, h[0], (float) beta1, (float) beta2, (float) eps, (float) weightDecay, h[1], h[2],
                maxNorm > 0 ? norm : null, (float) maxNorm, 1f / gradScale);
    }

    /**
     * Counts one more step and returns its {lr, lr / (1 − β1^t), √(1 − β2^t)} as the kernel takes them: what
     * {@link #stepWithDeviceHyperparameters} reads from device memory, where the caller puts them before the step.
     */
    public float[] nextStepHyperparameters(double lr) {
        t++;
        return new float[] {(float) lr, (float) (lr / (1 - Math.pow(beta1, t))),
                (float) Math.sqrt(1 - Math.pow(beta2, t))};
    }

    /**
     * As {@link #stepWithComputedNorm} without a loss scale, but reading the learning rate, step size and
     * bias correction ({@link #nextStepHyperparameters}) from three consecutive device floats at {@code hyper}:
     * the launch a CUDA graph captures then serves every later step. The same arithmetic as the eager step.
     */
    public void stepWithDeviceHyperparameters(long hyper, double maxNorm, Stream s) {
        launchStep("adamw_step_dev", s, hyper, (float) beta1, (float) beta2, (float) eps, (float) weightDecay,
                maxNorm > 0 ? norm : null, (float) maxNorm, 1f);
    }

    private void launchStep(String kernel, Stream s, Object... hyperparameters) {
        refreshLowCopies();
        Object[] args = new Object[9 + hyperparameters.length];
        Object[] tables = {params.address(), grads.address(), firstMoments.address(), secondMoments.address(),
                lows.address(), lowHalf.address(), lengths.address(), chunkTensor.address(), chunkStart.address()};
        System.arraycopy(tables, 0, args, 0, tables.length);
        System.arraycopy(hyperparameters, 0, args, tables.length, hyperparameters.length);
        ctx.kernels().launch("adamw.cu", kernel, grid, BLOCK, s, args);
        for (Parameter par : parameters) {
            if (par.low().tensor() != null) {
                par.low().rewritten();
            }
        }
    }

    /**
     * Uploads the table of 16-bit copies when a parameter got one (its first autocast GEMM) since the last
     * step; a new table rather than an overwrite, so that a step still in flight reads the old one intact.
     */
    private void refreshLowCopies() {
        long[] now = new long[parameters.size()];
        int[] half = new int[parameters.size()];
        for (int i = 0; i < now.length; i++) {
            Tensor low = parameters.get(i).low().tensor();
            now[i] = low == null ? 0 : low.address();
            half[i] = low != null && low.dtype() == DType.FP16 ? 1 : 0;
        }
        // the dtype too: a copy re-made in the other 16-bit dtype may get the same address from the allocator
        if (lows != null && Arrays.equals(now, lowAddresses) && Arrays.equals(half, lowKinds)) {
            return;
        }
        if (lows != null) {
            // kept until close: freed now, the caching allocator could hand the memory to the new table
            // while a queued step still reads the old one
            retired.add(lows);
            retired.add(lowHalf);
        }
        lows = upload(now);
        lowHalf = upload(half);
        lowAddresses = now;
        lowKinds = half;
    }

    /** Steps taken so far. */
    public int steps() {
        return t;
    }

    @Override
    public void close() {
        moments.forEach(Tensor::close);
        for (DeviceBuffer b : new DeviceBuffer[] {params, grads, firstMoments, secondMoments, lengths, chunkTensor,
                chunkStart, lows, lowHalf}) {
            if (b != null) {
                b.close();
            }
        }
        retired.forEach(DeviceBuffer::close);
        partial.close();
        norm.close();
    }
}
