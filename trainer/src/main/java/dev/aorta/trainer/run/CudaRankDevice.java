package dev.aorta.trainer.run;

import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.DeviceBuffer;
import dev.aorta.gpu.cuda.Event;
import dev.aorta.gpu.cuda.PinnedHostBuffer;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.LossScaler;
import dev.aorta.model.ops.AdamW;
import dev.aorta.model.ops.Parameter;
import dev.aorta.model.ranking.RankingModel;
import dev.aorta.trainer.data.BatchLoader;
import dev.aorta.trainer.plan.Block;
import dev.aorta.trainer.plan.FlatUnit;
import dev.aorta.trainer.schedule.ScheduledOp;
import dev.aorta.trainer.schedule.StreamRole;
import dev.aorta.trainer.step.RankDevice;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A rank's step on the GPU: the model's per-block passes on the compute stream, the batch copies on aux (into
 * two device batches, as on one GPU), CUDA events for the schedule's waits, AdamW on the rank's parameters (the
 * model's, or the pieces in its shards), and the step's start and end markers that bracket its CUPTI records.
 * {@link #prepare} sets the step before the executor issues it; {@link #loss} and {@link #gradNorm} read what the
 * step copied to the host, once its end event is complete.
 */
final class CudaRankDevice implements RankDevice, AutoCloseable {
    /** Two device batches: the copy of micro-batch m + 1 may run while compute still reads micro-batch m. */
    private static final int DEVICE_BATCHES = 2;

    private final CudaDevice device;
    private final TrainStreams streams;
    private final RankingModel model;
    private final RankingModel.Activations acts;
    private final FlatParameters flat;
    private final AdamW optimizer;
    private final LossScaler scaler;
    private final BatchLoader loader;
    private final long seed;
    private final int microBatches;
    private final double clip;
    private final DeviceBatch[] deviceBatches = new DeviceBatch[DEVICE_BATCHES];
    private final Event[] deviceFree = new Event[DEVICE_BATCHES];
    private final boolean[] deviceUsed = new boolean[DEVICE_BATCHES];
    private final PinnedHostBuffer[] lossHost;
    private final PinnedHostBuffer normHost;
    private final DeviceBuffer marker;
    private final Event end;
    /** training.inject_allreduce_copies: null when off. */
    private final AllReduceStress stress;
    private final Map<Integer, Event> events = new HashMap<>();
    private final List<AutoCloseable> owned = new ArrayList<>();
    private int step;
    private double lr;
    private float scale;
    private boolean applied;

    CudaRankDevice(CudaDevice device, TrainStreams streams, RankingModel model, FlatParameters flat, AdamW optimizer,
                   LossScaler scaler, BatchLoader loader, DeviceBatch[] batches, long seed, int microBatches,
                   double clip, AllReduceStress stress) {
        this.device = device;
        this.stress = stress;
        this.streams = streams;
        this.model = model;
        this.flat = flat;
        this.optimizer = optimizer;
        this.scaler = scaler;
        this.loader = loader;
        this.seed = seed;
        this.microBatches = microBatches;
        this.clip = clip;
        this.acts = model.activations();
        owned.add(acts);
        for (int i = 0; i < DEVICE_BATCHES; i++) {
            deviceBatches[i] = batches[i];
            deviceFree[i] = device.createEvent(false);
            owned.add(deviceFree[i]);
        }
        lossHost = new PinnedHostBuffer[microBatches];
        for (int m = 0; m < microBatches; m++) {
            lossHost[m] = device.allocatePinned(4);
            owned.add(lossHost[m]);
        }
        normHost = device.allocatePinned(4);
        marker = device.allocate(StepRecordSplitter.END_MARKER_BYTES);
        end = device.createEvent(false);
        owned.addAll(List.of(normHost, marker, end));
    }

    /** The step the next {@link dev.aorta.trainer.step.StepExecutor#issueStep} issues, at learning rate lr. */
    void prepare(int step, double lr) {
        this.step = step;
        this.lr = lr;
        this.scale = scaler == null ? 1f : scaler.scale();
        this.applied = true;
    }

    /** The step's end marker's event: complete once everything of the step has run. */
    Event end() {
        return end;
    }

    /** The mean loss over the step's micro-batches (after {@link #end()} completed). */
    double loss() {
        double loss = 0;
        for (PinnedHostBuffer h : lossHost) {
            loss += h.segment().get(ValueLayout.JAVA_FLOAT, 0);
        }
        return loss / microBatches;
    }

    /** The step's global gradient norm, loss scale removed (after {@link #end()} completed). */
    double gradNorm() {
        return normHost.segment().get(ValueLayout.JAVA_FLOAT, 0) / (double) scale;
    }

    /** False when fp16's loss scaler skipped the step (its gradients overflowed). */
    boolean applied() {
        return applied;
    }

    private Stream compute() {
        return streams.get(StreamRole.COMPUTE);
    }

    private long microBatchIndex(ScheduledOp op) {
        return (long) step * microBatches + op.microBatch();
    }

    private DeviceBatch batch(ScheduledOp op) {
        return deviceBatches[(int) (microBatchIndex(op) % DEVICE_BATCHES)];
    }

    private Event event(int opIndex) {
        return events.computeIfAbsent(opIndex, i -> {
            Event e = device.createEvent(false);
            owned.add(e);
            return e;
        });
    }

    @Override
    public void recordAfter(ScheduledOp op) {
        event(op.index()).record(streams.get(op.stream()));
    }

    @Override
    public void waitFor(StreamRole stream, ScheduledOp done) {
        streams.get(stream).waitFor(event(done.index()));
    }

    @Override
    public void beginStep(ScheduledOp op) {
        marker.fill8Async((byte) 0, StepRecordSplitter.START_MARKER_BYTES, compute());
        flat.zeroGrads(compute());
    }

    @Override
    public void copyBatch(ScheduledOp op) {
        long n = microBatchIndex(op);
        Stream aux = streams.get(op.stream());
        PinnedBatch host = (PinnedBatch) loader.acquire(n);
        int d = (int) (n % DEVICE_BATCHES);
        if (deviceUsed[d]) {
            aux.waitFor(deviceFree[d]);
        }
        host.copyTo(deviceBatches[d], aux);
    }

    @Override
    public void gathered(ScheduledOp op, FlatUnit unit) {
        flat.modelParameters(unit).forEach(Parameter::valueChanged);
    }

    @Override
    public void release(ScheduledOp op, FlatUnit unit) {
        // the buffer stays allocated (FlatParameters says why); the executor's event after this op orders its reuse
    }

    @Override
    public void forward(ScheduledOp op, Block block) {
        DeviceBatch b = batch(op);
        long n = microBatchIndex(op);
        switch (block.kind()) {
            case STEM -> model.forwardStem(b.dense, b.categorical, b.target, b.importance, acts, compute());
            case LAYER -> model.forwardLayer(block.layer(), acts, seed, n, compute());
            case HEAD -> {
                model.forwardHead(b.target, b.importance, acts, seed, n, compute());
                acts.loss().copyToAsync(lossHost[op.microBatch()], compute());
            }
        }
    }

    @Override
    public void backward(ScheduledOp op, Block block) {
        DeviceBatch b = batch(op);
        long n = microBatchIndex(op);
        switch (block.kind()) {
            case HEAD -> model.backwardHead(b.target, b.importance, scale / microBatches, acts, seed, n, compute());
            case LAYER -> model.backwardLayer(block.layer(), acts, seed, n, compute());
            case STEM -> {
                model.backwardStem(b.dense, b.categorical, acts, compute());
                int d = (int) (n % DEVICE_BATCHES);
                deviceFree[d].record(compute());
                deviceUsed[d] = true;
            }
        }
    }

    @Override
    public void gradNorm(ScheduledOp op, boolean shardSumOfSquares) {
        if (shardSumOfSquares) {
            optimizer.computeGradSumSquares(compute());
        } else {
            optimizer.computeGradNorm(compute());
        }
    }

    @Override
    public void optimizer(ScheduledOp op, boolean normIsSumOfSquares) {
        if (normIsSumOfSquares) {
            optimizer.finishGradNorm(compute());
        }
        if (scaler != null) {
            // GradScaler's rule, as LossScaler.step: the host reads the norm (a wait) to skip an overflowed step
            boolean overflow = !Float.isFinite(optimizer.gradNorm().toFloats()[0]);
            if (!overflow) {
                optimizer.stepWithComputedNorm(lr, clip, scale, compute());
            }
            applied = scaler.update(overflow);
        } else {
            optimizer.stepWithComputedNorm(lr, clip, 1f, compute());
        }
        optimizer.gradNorm().copyToAsync(normHost, compute());
    }

    @Override
    public void endStep(ScheduledOp op) {
        if (stress != null) {
            stress.inject(acts.loss(), compute(), streams.get(StreamRole.ALLREDUCE));
        }
        marker.fill8Async((byte) 0, StepRecordSplitter.END_MARKER_BYTES, compute());
        end.record(compute());
    }

    @Override
    public void close() {
        for (int i = owned.size() - 1; i >= 0; i--) {
            try {
                owned.get(i).close();
            } catch (Exception e) {
                throw new IllegalStateException("releasing " + owned.get(i) + " failed: " + e.getMessage(), e);
            }
        }
    }
}
