package dev.aorta.trainer.run;

import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.Event;
import dev.aorta.gpu.cuda.PinnedHostBuffer;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.HostTensor;
import dev.aorta.trainer.data.BatchSlot;
import dev.aorta.trainer.data.Sample;
import dev.aorta.trainer.data.SyntheticRankingDataset;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One micro-batch in page-locked host memory, filled row by row by the loader's threads and copied to a
 * {@link DeviceBatch} asynchronously on the aux stream. It records an event after each copy out of it, so that the
 * loader refills it only once that copy has read it ({@link #awaitCopied}).
 */
final class PinnedBatch implements BatchSlot, AutoCloseable {
    private final SyntheticRankingDataset.Shape shape;
    private final int batch;
    private final PinnedHostBuffer dense;
    private final PinnedHostBuffer categorical;
    private final PinnedHostBuffer target;
    private final PinnedHostBuffer importance;
    private final MemorySegment denseSeg;
    private final MemorySegment categoricalSeg;
    private final MemorySegment targetSeg;
    private final MemorySegment importanceSeg;
    private final Event copied;
    private boolean copyIssued;

    /** The loader's ring: max(2, workers + 1) slots, so that every worker has one to fill while one is copied. */
    static List<PinnedBatch> ring(CudaDevice device, int batch, SyntheticRankingDataset.Shape shape, int workers) {
        List<PinnedBatch> slots = new ArrayList<>();
        for (int i = 0; i < Math.max(2, workers + 1); i++) {
            slots.add(new PinnedBatch(device, batch, shape));
        }
        return slots;
    }

    PinnedBatch(CudaDevice device, int batch, SyntheticRankingDataset.Shape shape) {
        this.shape = shape;
        this.copied = device.createEvent(false);
        this.batch = batch;
        dense = device.allocatePinned(4L * batch * shape.denseElements());
        categorical = device.allocatePinned(4L * batch * shape.categoricalElements());
        target = device.allocatePinned(4L * batch * shape.sequenceLength());
        importance = device.allocatePinned(4L * batch * shape.sequenceLength());
        denseSeg = dense.segment();
        categoricalSeg = categorical.segment();
        targetSeg = target.segment();
        importanceSeg = importance.segment();
    }

    @Override
    public void put(int row, Sample s) {
        int de = shape.denseElements();
        int ce = shape.categoricalElements();
        int t = shape.sequenceLength();
        MemorySegment.copy(s.dense(), 0, denseSeg, ValueLayout.JAVA_FLOAT, 4L * row * de, de);
        MemorySegment.copy(s.categorical(), 0, categoricalSeg, ValueLayout.JAVA_INT, 4L * row * ce, ce);
        MemorySegment.copy(s.target(), 0, targetSeg, ValueLayout.JAVA_FLOAT, 4L * row * t, t);
        MemorySegment.copy(s.importance(), 0, importanceSeg, ValueLayout.JAVA_FLOAT, 4L * row * t, t);
    }

    /** Queues the four copies into {@code to} on {@code stream}, and the event that says they have run. */
    void copyTo(DeviceBatch to, Stream stream) {
        to.dense.copyFromAsync(dense, stream);
        to.categorical.copyFromAsync(categorical, stream);
        to.target.copyFromAsync(target, stream);
        to.importance.copyFromAsync(importance, stream);
        copied.record(stream);
        copyIssued = true;
    }

    /** Returns once the last copy out of this batch has run (at once if none was issued): it may be refilled. */
    void awaitCopied() {
        if (copyIssued) {
            copied.synchronize();
        }
    }

    /** Host copies, named {@code prefix}dense etc., for the batch dump (little-endian, as the host is). */
    void exportTo(String prefix, Map<String, HostTensor> out) {
        int t = shape.sequenceLength();
        out.put(prefix + "dense", new HostTensor(DType.FP32, new int[] {batch, t, shape.denseFeatures(),
                shape.denseDim()}, denseSeg.toArray(ValueLayout.JAVA_BYTE)));
        out.put(prefix + "categorical", new HostTensor(DType.I32, new int[] {batch, t, shape.sparseFeatures()},
                categoricalSeg.toArray(ValueLayout.JAVA_BYTE)));
        out.put(prefix + "target", new HostTensor(DType.FP32, new int[] {batch, t},
                targetSeg.toArray(ValueLayout.JAVA_BYTE)));
        out.put(prefix + "importance", new HostTensor(DType.FP32, new int[] {batch, t},
                importanceSeg.toArray(ValueLayout.JAVA_BYTE)));
    }

    @Override
    public void close() {
        copied.close();
        dense.close();
        categorical.close();
        target.close();
        importance.close();
    }
}
