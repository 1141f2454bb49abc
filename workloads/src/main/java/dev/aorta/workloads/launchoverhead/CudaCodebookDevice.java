package dev.aorta.workloads.launchoverhead;

import dev.aorta.core.event.Dim3;
import dev.aorta.workloads.kernels.WorkloadKernels;
import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.GpuBuffer;
import dev.aorta.workloads.session.GemmSpec;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuStream;
import dev.aorta.workloads.session.KernelArg;
import dev.aorta.workloads.session.KernelModule;
import dev.aorta.workloads.session.PreparedGemm;
import dev.aorta.workloads.session.PreparedLaunch;
import java.util.ArrayList;
import java.util.List;

import static dev.aorta.workloads.session.KernelArg.i32;
import static dev.aorta.workloads.session.KernelArg.pointer;

/**
 * {@link CodebookDevice} on a GPU: kernels/codebook.cu compiled by NVRTC and an fp32 cuBLAS GEMM, all on one
 * stream. Every launch is prepared once (function, shape, parameter buffer); the per-centroid values
 * (centroid index, candidate count) are written into the prepared parameters before each launch, so a
 * launch costs the driver call. Launches and syncs are counted at the call sites.
 */
public final class CudaCodebookDevice implements CodebookDevice {
    static final String KERNELS = "codebook.cu";
    private static final int BLOCK = 256;
    /** compact_unassigned and select_smallest: one block of this many threads (a power of two, at most 1024). */
    private static final int SINGLE_BLOCK = 1024;

    private final GpuSession gpu;
    private final CodebookShape shape;
    private final LaunchCounters counters = new LaunchCounters();
    private final List<GpuBuffer> buffers = new ArrayList<>();
    private final GpuStream stream;
    private final boolean ownsStream;
    private final GpuBuffer[] assign;
    private final GpuBuffer count;

    private final PreparedLaunch beginStep;
    private final PreparedLaunch pointNorms;
    private final PreparedLaunch[] centroidNorms;
    private final PreparedGemm[] dots;
    private final PreparedLaunch distancesFromDots;
    private final PreparedLaunch[] argminRows;
    private final PreparedLaunch[] gatherCentroids;
    private final PreparedLaunch residualUpdate;
    private final PreparedLaunch resetMask;
    private final PreparedLaunch copyColumn;
    private final PreparedLaunch compactUnassigned;
    private final PreparedLaunch gatherCandidates;
    private final PreparedLaunch selectNearest;
    private final PreparedLaunch[] writeAssignments;
    private final PreparedLaunch updateMask;

    /** Uploads the problem and prepares every launch; the device owns the stream and the buffers it makes. */
    public CudaCodebookDevice(GpuSession gpu, CodebookProblem problem) {
        this(gpu, problem, null);
    }

    /**
     * The same on a stream of the caller's (the harness's), which the device uses but does not close.
     *
     * @param onStream null: the device makes its own stream
     */
    public CudaCodebookDevice(GpuSession gpu, CodebookProblem problem, GpuStream onStream) {
        this.gpu = gpu;
        this.shape = problem.shape();
        int n = shape.batch();
        int k = shape.centroids();
        int d = shape.dim();
        int w = shape.rowsPerCentroid();
        int stages = shape.stages();
        int points = n * d;
        ownsStream = onStream == null;
        stream = ownsStream ? gpu.createStream(gpu.deviceInfo().priorityRange().least()) : onStream;
        try {
            GpuBuffer batch = floats(points);
            gpu.writeFloats(batch, problem.batch());
            GpuBuffer[] codebooks = new GpuBuffer[stages];
            for (int s = 0; s < stages; s++) {
                codebooks[s] = floats((long) k * d);
                gpu.writeFloats(codebooks[s], problem.codebooks()[s]);
            }
            GpuBuffer residual = floats(points);
            GpuBuffer quantized = floats(points);
            GpuBuffer gathered = floats(points);
            GpuBuffer pNorms = floats(n);
            GpuBuffer cNorms = floats(k);
            GpuBuffer dist = floats((long) k * n);
            assign = new GpuBuffer[stages];
            for (int s = 0; s < stages; s++) {
                assign[s] = ints(n);
            }
            GpuBuffer assigned = ints(n);
            GpuBuffer column = floats(n);
            GpuBuffer candidates = ints(n);
            GpuBuffer values = floats(n);
            GpuBuffer chosen = ints(w);
            count = ints(1);

            KernelModule m = gpu.loadModule(KERNELS, WorkloadKernels.source(KERNELS));
            beginStep = m.prepare("begin_step", blocks(points), block(BLOCK), 0, stream,
                    pointer(residual), pointer(batch), pointer(quantized), i32(points));
            pointNorms = m.prepare("point_norms", blocks(n), block(BLOCK), 0, stream,
                    pointer(residual), pointer(pNorms), i32(n), i32(d));
            distancesFromDots = m.prepare("distances_from_dots", blocks((long) k * n), block(BLOCK), 0, stream,
                    pointer(dist), pointer(pNorms), pointer(cNorms), i32(k), i32(n));
            residualUpdate = m.prepare("residual_update", blocks(points), block(BLOCK), 0, stream,
                    pointer(residual), pointer(quantized), pointer(gathered), i32(points));
            resetMask = m.prepare("reset_mask", blocks(n), block(BLOCK), 0, stream, pointer(assigned), i32(n));
            copyColumn = m.prepare("copy_column", blocks(n), block(BLOCK), 0, stream,
                    pointer(dist), pointer(column), i32(0), i32(k), i32(n));
            compactUnassigned = m.prepare("compact_unassigned", new Dim3(1, 1, 1), block(SINGLE_BLOCK), 0, stream,
                    pointer(assigned), pointer(candidates), pointer(count), i32(n));
            gatherCandidates = m.prepare("gather_candidates", blocks(n), block(BLOCK), 0, stream,
                    pointer(column), pointer(candidates), pointer(values), i32(n));
            selectNearest = m.prepare("select_smallest", new Dim3(1, 1, 1), block(SINGLE_BLOCK), 0, stream,
                    pointer(values), pointer(candidates), i32(n), i32(w), pointer(chosen));
            updateMask = m.prepare("update_mask", blocks(w), block(BLOCK), 0, stream,
                    pointer(chosen), i32(w), pointer(assigned));
            centroidNorms = new PreparedLaunch[stages];
            dots = new PreparedGemm[stages];
            argminRows = new PreparedLaunch[stages];
            gatherCentroids = new PreparedLaunch[stages];
            writeAssignments = new PreparedLaunch[stages];
            for (int s = 0; s < stages; s++) {
                centroidNorms[s] = m.prepare("centroid_norms", blocks(k), block(BLOCK), 0, stream,
                        pointer(codebooks[s]), pointer(cNorms), i32(k), i32(d));
                // column-major K x N = (K x D codebook) · (D x N residual), fp32 storage and compute
                dots[s] = gpu.prepareGemm(new GemmSpec(DType.FP32, k, n, d, 1), codebooks[s], residual, dist, stream);
                argminRows[s] = m.prepare("argmin_rows", new Dim3(n, 1, 1), block(BLOCK), 0, stream,
                        pointer(dist), pointer(assign[s]), i32(k), i32(n));
                gatherCentroids[s] = m.prepare("gather_centroids", blocks(points), block(BLOCK), 0, stream,
                        pointer(codebooks[s]), pointer(assign[s]), pointer(gathered), i32(n), i32(d), i32(k));
                writeAssignments[s] = m.prepare("write_assignments", blocks(w), block(BLOCK), 0, stream,
                        pointer(chosen), i32(w), pointer(assign[s]), i32(0));
            }
            gpu.synchronize();
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    private GpuBuffer floats(long count) {
        GpuBuffer b = gpu.allocate(count * Float.BYTES);
        buffers.add(b);
        return b;
    }

    private GpuBuffer ints(long count) {
        GpuBuffer b = gpu.allocate(count * Integer.BYTES);
        buffers.add(b);
        return b;
    }

    private static Dim3 blocks(long elements) {
        return new Dim3(Math.toIntExact((elements + BLOCK - 1) / BLOCK), 1, 1);
    }

    private static Dim3 block(int threads) {
        return new Dim3(threads, 1, 1);
    }

    @Override
    public CodebookShape shape() {
        return shape;
    }

    @Override
    public void beginStep() {
        launch(beginStep);
    }

    @Override
    public void pointNorms() {
        launch(pointNorms);
    }

    @Override
    public void centroidNorms(int stage) {
        launch(centroidNorms[stage]);
    }

    @Override
    public void dots(int stage) {
        dots[stage].launch();
        counters.launched();
    }

    @Override
    public void distancesFromDots() {
        launch(distancesFromDots);
    }

    @Override
    public void argminRows(int stage) {
        launch(argminRows[stage]);
    }

    @Override
    public void gatherCentroids(int stage) {
        launch(gatherCentroids[stage]);
    }

    @Override
    public void residualUpdate() {
        launch(residualUpdate);
    }

    @Override
    public void resetMask() {
        launch(resetMask);
    }

    @Override
    public void copyColumn(int centroid) {
        copyColumn.setInt(2, centroid);
        launch(copyColumn);
    }

    @Override
    public int compactUnassigned() {
        launch(compactUnassigned);
        int unassigned = gpu.readIntOnStream(count, stream);
        counters.synced();
        return unassigned;
    }

    @Override
    public void gatherCandidates(int candidates) {
        gatherCandidates.setInt(3, candidates);
        launch(gatherCandidates);
    }

    @Override
    public void selectNearest(int candidates) {
        selectNearest.setInt(2, candidates);
        launch(selectNearest);
    }

    @Override
    public void writeAssignments(int stage, int centroid) {
        writeAssignments[stage].setInt(3, centroid);
        launch(writeAssignments[stage]);
    }

    @Override
    public void updateMask() {
        launch(updateMask);
    }

    @Override
    public void finishStep() {
        stream.synchronize();
        counters.synced();
    }

    private void launch(PreparedLaunch launch) {
        launch.launch();
        counters.launched();
    }

    @Override
    public int[] assignments(int stage) {
        return gpu.readInts(assign[stage], shape.batch());
    }

    @Override
    public LaunchCounters counters() {
        return counters;
    }

    @Override
    public void close() {
        gpu.synchronize();
        buffers.forEach(GpuBuffer::close);
        buffers.clear();
        if (ownsStream) {
            stream.close();
        }
    }
}
