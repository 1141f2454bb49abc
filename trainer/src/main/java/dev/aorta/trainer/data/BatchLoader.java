package dev.aorta.trainer.data;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * Generates micro-batches ahead of the step into a ring of {@link BatchSlot}s, on {@code dataloader.num_workers}
 * host threads (0: on the caller's thread, when asked). Micro-batch n holds samples n·B … n·B + B − 1 of the
 * epoch, in order, where an epoch is the first {@code samplesPerEpoch} samples (whole optimizer steps, as a
 * loader that drops the last partial batch). While the caller uses micro-batch n, micro-batches n + 1 … n + S − 1
 * (S slots) are being generated.
 *
 * <p>Under data parallelism each rank loads its own part of the data, as torch's DistributedSampler without
 * shuffling: rank r of W takes the micro-batches r, W + r, 2W + r, … of the stream above, so that together the
 * ranks read the epoch's first {@code samplesPerEpoch} samples once each.
 *
 * <p>A slot is refilled only after {@code awaitSlotFree} returns for it, on the caller's thread: the GPU trainer
 * waits there for the copy out of the slot's page-locked memory to finish.
 */
public final class BatchLoader implements AutoCloseable {
    private final SyntheticRankingDataset dataset;
    private final int microBatch;
    private final long samplesPerEpoch;
    private final int rank;
    private final int worldSize;
    private final List<? extends BatchSlot> slots;
    private final IntConsumer awaitSlotFree;
    private final ExecutorService workers;
    private final int workerCount;
    private final ThreadLocal<Sample> scratch;
    private final List<List<Future<?>>> pending = new ArrayList<>();
    private final long[] filledWith;
    private long submittedUpTo = -1;
    private volatile boolean closed;

    public BatchLoader(SyntheticRankingDataset dataset, int microBatch, long samplesPerEpoch,
                       List<? extends BatchSlot> slots, int workerCount, IntConsumer awaitSlotFree) {
        this(dataset, microBatch, samplesPerEpoch, slots, workerCount, awaitSlotFree, 0, 1);
    }

    /** Rank {@code rank} of {@code worldSize}'s loader; {@code samplesPerEpoch} counts every rank's samples. */
    public BatchLoader(SyntheticRankingDataset dataset, int microBatch, long samplesPerEpoch,
                       List<? extends BatchSlot> slots, int workerCount, IntConsumer awaitSlotFree, int rank,
                       int worldSize) {
        if (worldSize < 1 || rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("batch loader: rank " + rank + " of a world of " + worldSize);
        }
        this.rank = rank;
        this.worldSize = worldSize;
        if (slots.isEmpty() || microBatch < 1 || samplesPerEpoch < microBatch) {
            throw new IllegalArgumentException("batch loader: need a slot, a micro-batch of at least 1 and an epoch"
                    + " of at least one micro-batch; got " + slots.size() + " slots, " + microBatch + ", "
                    + samplesPerEpoch);
        }
        this.dataset = dataset;
        this.microBatch = microBatch;
        this.samplesPerEpoch = samplesPerEpoch;
        this.slots = List.copyOf(slots);
        this.awaitSlotFree = awaitSlotFree;
        this.workerCount = workerCount;
        this.workers = workerCount == 0 ? null : Executors.newFixedThreadPool(workerCount, r -> {
            Thread t = new Thread(r, "aorta-batch-loader");
            t.setDaemon(true);
            return t;
        });
        this.scratch = ThreadLocal.withInitial(() -> new Sample(dataset.shape()));
        this.filledWith = new long[slots.size()];
        for (int i = 0; i < slots.size(); i++) {
            pending.add(List.of());
            filledWith[i] = -1;
        }
    }

    /** The dataset index of row {@code row} of this rank's micro-batch {@code n}. */
    public long sampleIndex(long n, int row) {
        return ((n * worldSize + rank) * microBatch + row) % samplesPerEpoch;
    }

    /**
     * Micro-batch {@code n}'s slot, once generated; queues the next ones. Micro-batches must be acquired in order,
     * 0, 1, 2, …
     */
    public BatchSlot acquire(long n) {
        for (long m = submittedUpTo + 1; m <= n + slots.size() - 1; m++) {
            submit(m);
        }
        int slot = slotOf(n);
        if (filledWith[slot] != n) {
            throw new IllegalStateException("micro-batch " + n + " acquired out of order (slot holds "
                    + filledWith[slot] + ")");
        }
        for (Future<?> f : pending.get(slot)) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while generating micro-batch " + n, e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("generating micro-batch " + n + " failed: " + e.getCause(),
                        e.getCause());
            }
        }
        return slots.get(slot);
    }

    private int slotOf(long n) {
        return (int) (n % slots.size());
    }

    private void submit(long n) {
        int slot = slotOf(n);
        if (filledWith[slot] >= 0) {
            awaitSlotFree.accept(slot);
        }
        filledWith[slot] = n;
        submittedUpTo = n;
        BatchSlot target = slots.get(slot);
        if (workers == null) {
            fillRows(target, n, 0, microBatch);
            pending.set(slot, List.of());
            return;
        }
        List<Future<?>> futures = new ArrayList<>();
        int chunks = Math.min(workerCount, microBatch);
        for (int c = 0; c < chunks; c++) {
            int from = c * microBatch / chunks;
            int to = (c + 1) * microBatch / chunks;
            futures.add(workers.submit(() -> fillRows(target, n, from, to)));
        }
        pending.set(slot, futures);
    }

    private void fillRows(BatchSlot target, long n, int from, int to) {
        Sample s = scratch.get();
        for (int row = from; row < to && !closed; row++) {
            dataset.fill(sampleIndex(n, row), s);
            target.put(row, s);
        }
    }

    /**
     * Stops generating and returns once no worker writes into a slot any more: the slots' memory (page-locked, in
     * the GPU trainer) may be freed right after.
     */
    @Override
    public void close() {
        closed = true;
        if (workers != null) {
            workers.shutdown();
            try {
                if (!workers.awaitTermination(1, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("batch loader workers still writing a minute after close");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while stopping the batch loader", e);
            }
        }
    }
}
