package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.CudaGraph;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.Layer;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.session.GpuStream;
import dev.aorta.workloads.spi.Workload;
import dev.aorta.workloads.spi.WorkloadContext;

import java.util.ArrayList;
import java.util.List;

/**
 * What the model workloads of issue 15's second part share: the model runtime, the tensors, layers and events they
 * own (freed in {@link #cleanup}), and one iteration as a list of enqueues built once in {@link #build}, so that
 * {@link #runIteration} only re-issues them. The harness counts the launches they make as they make them.
 */
abstract class ModelWorkload implements Workload {
    protected ModelRuntime rt;
    protected WorkloadContext ctx;
    private final List<Tensor> tensors = new ArrayList<>();
    private final List<Layer> layers = new ArrayList<>();
    private final List<GpuEvent> events = new ArrayList<>();
    private final List<AutoCloseable> others = new ArrayList<>();
    protected final List<Runnable> iteration = new ArrayList<>();

    @Override
    public String category() {
        return "hw_queue";
    }

    @Override
    public final void setup(WorkloadContext context) {
        ctx = context;
        validate();
        rt = ModelRuntime.open(name(), context);
        build();
    }

    /**
     * Reads the parameters and refuses combinations the workload cannot mean (streams a role would leave idle...),
     * before the GPU is touched, so that the error is the same with or without a device.
     */
    protected abstract void validate();

    /** Allocates, initialises and schedules one iteration into {@link #iteration}. */
    protected abstract void build();

    @Override
    public void runIteration(int i) {
        iteration.forEach(Runnable::run);
    }

    @Override
    public boolean hasCorrectnessCheck() {
        return true;
    }

    protected Tensor keep(Tensor t) {
        tensors.add(t);
        return t;
    }

    protected <L extends Layer> L keep(L layer) {
        layers.add(layer);
        return layer;
    }

    protected <C extends AutoCloseable> C keepOther(C closeable) {
        others.add(closeable);
        return closeable;
    }

    /**
     * The role of stream {@code index} of {@code count} in three consecutive groups whose sizes differ by at most one,
     * the later ones the larger (11 streams: 3, 4, 4). AORTA's thirds give the last group the whole remainder (3, 3, 5
     * at 11 streams), which leaves streams of it idle where the model has a third of the range's top count of units
     * (4 layers or segments over 4..12 streams).
     */
    protected static String evenThirds(int index, int count, String first, String second, String third) {
        int last = (count + 2) / 3;
        int middle = (count - last + 1) / 2;
        int firstSize = count - last - middle;
        return index < firstSize ? first : index < firstSize + middle ? second : third;
    }

    /** A {@link WorkloadParameter#growing} count: as given, or for 0 AORTA's value or {@code streams}, the larger. */
    protected int growing(String name, int aortas, int streams) {
        int given = ctx.intParameter(name);
        return given > 0 ? given : Math.max(aortas, streams);
    }

    /** An fp32 tensor on the device, owned by the workload. */
    protected Tensor tensor(String what, int... shape) {
        return keep(rt.ops(0).empty(name(), what, DType.FP32, shape));
    }

    /** An event recorded once on {@code stream}, so that a first wait on it is met. */
    protected GpuEvent event(int stream) {
        GpuEvent e = ctx.gpu().createEvent();
        events.add(e);
        e.record(gs(stream));
        return e;
    }

    protected GpuStream gs(int index) {
        return ctx.streams().get(index);
    }

    protected Stream cs(int index) {
        return rt.stream(index);
    }

    /** Schedules: stream {@code waiter} waits until {@code e} has been reached. */
    protected void waitOn(int waiter, GpuEvent e) {
        GpuStream s = gs(waiter);
        iteration.add(() -> s.waitEvent(e));
    }

    /** Schedules: record {@code e} on stream {@code index}. */
    protected void recordOn(int index, GpuEvent e) {
        GpuStream s = gs(index);
        iteration.add(() -> e.record(s));
    }

    /**
     * {@code work} on {@code s} as a CUDA graph: run once eagerly first (kernels are loaded and cuBLASLt plans
     * made on first use, which a capture must not see), then captured from the stream.
     */
    protected CudaGraph captured(Runnable work, Stream s) {
        work.run();
        ctx.gpu().synchronize();
        s.beginCapture();
        work.run();
        return keepOther(s.endCapture());
    }

    /**
     * Schedules {@code work} on stream {@code index}: with {@code graphs}, {@link #captured} and replayed as one
     * launch each iteration (so whatever it reads from work scheduled before it must have been run eagerly already,
     * which scheduling in dependency order gives); without, run as it is.
     */
    protected void scheduleWork(Runnable work, int index, boolean graphs) {
        if (graphs) {
            Stream s = cs(index);
            CudaGraph graph = captured(work, s);
            iteration.add(() -> graph.launch(s));
        } else {
            iteration.add(work);
        }
    }

    /** Start of part k of n equal parts of {@code total} (the rows of part k are [split(k), split(k + 1))). */
    protected static int split(int total, int k, int n) {
        return (int) ((long) total * k / n);
    }

    /** Uniform values in [-1, 1), reproducible by seed. */
    static float[] random(int n, long seed) {
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) r.nextDouble(-1, 1);
        }
        return v;
    }

    @Override
    public void cleanup() {
        iteration.clear();
        for (AutoCloseable c : others.reversed()) {
            try {
                c.close();
            } catch (Exception e) {
                throw new IllegalStateException(name() + ": freeing " + c + " failed: " + e.getMessage(), e);
            }
        }
        others.clear();
        events.forEach(GpuEvent::close);
        events.clear();
        layers.forEach(Layer::close);
        layers.clear();
        tensors.forEach(Tensor::close);
        tensors.clear();
        if (rt != null) {
            rt.close();
            rt = null;
        }
    }
}
