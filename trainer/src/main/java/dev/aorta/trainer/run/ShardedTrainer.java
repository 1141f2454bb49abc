package dev.aorta.trainer.run;

import dev.aorta.api.Aorta;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.CollectiveBandwidth;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.Event;
import dev.aorta.gpu.cuda.MemoryStats;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.gpu.cupti.CuptiTracer;
import dev.aorta.gpu.nccl.Nccl;
import dev.aorta.gpu.nccl.NcclComm;
import dev.aorta.model.DType;
import dev.aorta.model.HostTensor;
import dev.aorta.model.LossScaler;
import dev.aorta.model.OpContext;
import dev.aorta.model.ParameterFile;
import dev.aorta.model.ParameterStorage;
import dev.aorta.model.ops.AdamW;
import dev.aorta.model.ranking.RankingModel;
import dev.aorta.trainer.config.ConfigException;
import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.config.TrainingConfig.MixedPrecision;
import dev.aorta.trainer.data.BatchLoader;
import dev.aorta.trainer.data.SyntheticRankingDataset;
import dev.aorta.trainer.log.RankLog;
import dev.aorta.trainer.loop.LearningRate;
import dev.aorta.trainer.metrics.MetricsJsonlWriter;
import dev.aorta.trainer.metrics.StepCollectives;
import dev.aorta.trainer.plan.Collective;
import dev.aorta.trainer.plan.FlatUnit;
import dev.aorta.trainer.plan.MemoryEstimate;
import dev.aorta.trainer.plan.MemoryFit;
import dev.aorta.trainer.plan.ShardingPlan;
import dev.aorta.trainer.schedule.OpKind;
import dev.aorta.trainer.schedule.ScheduledOp;
import dev.aorta.trainer.schedule.StepSchedule;
import dev.aorta.trainer.schedule.StreamRole;
import dev.aorta.trainer.telemetry.NvmlTelemetrySource;
import dev.aorta.trainer.step.RankLayout;
import dev.aorta.trainer.step.StepExecutor;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code aorta train} as one rank of a data-parallel run over NCCL (any world size, one included): the sharding
 * plan and step schedule of the configured mode, issued each step by {@link StepExecutor} on the four streams,
 * with the model computing from views into the flat unit buffers ({@link FlatParameters}) and AdamW on the rank's
 * own parameters. Each rank reads its own micro-batches ({@link BatchLoader}'s rank split), writes
 * {@code rank_<rr>_metrics.jsonl} with CUPTI device times, and rank 0 prints the progress lines.
 *
 * <p>With one rank every FSDP strategy is no_shard (as FSDP): no collective is issued, and the step computes
 * exactly what {@link SingleGpuTrainer} does (the same kernels on the same parameter tensors, in the same order).
 *
 * <p>While the host waits for a step's end, a watcher polls the communicators' asynchronous errors every
 * {@value #WATCH_MS} ms; on one it aborts them, which releases the wait, and the run fails naming the rank and
 * NCCL's error. A peer that dies is the launcher's to handle: it stops every rank (docs/trainer.md).
 */
public final class ShardedTrainer {
    static final long WATCH_MS = 100;

    private ShardedTrainer() {
    }

    /** Optimizer steps in an epoch of a world: whole global batches (every rank's batch_size) only. */
    public static int stepsPerEpoch(TrainerConfig cfg, int worldSize) {
        long global = (long) cfg.training().batchSize() * worldSize;
        int steps = (int) (cfg.dataset().numSamples() / global);
        if (steps == 0) {
            throw new ConfigException("dataset.num_samples is " + cfg.dataset().numSamples() + ", expected at least"
                    + " training.batch_size × world size (" + global + "), since an epoch is made of whole global"
                    + " batches.");
        }
        return steps;
    }

    /** Optimizer steps the run plans: {@code training.max_steps}, or {@code epochs} whole epochs when it is 0. */
    public static int plannedSteps(TrainerConfig cfg, int worldSize) {
        int max = cfg.training().maxSteps();
        return max > 0 ? max : Math.multiplyExact(cfg.training().epochs(), stepsPerEpoch(cfg, worldSize));
    }

    public static TrainResult run(TrainerConfig cfg, RankContext rc, TrainOptions opts, PrintStream out,
                                  StopSignal stop) throws IOException {
        if (opts.dumpBatches() != null) {
            throw new ConfigException("--dump-batches is for the one-GPU trainer's PyTorch replay; this run is rank "
                    + rc.rank() + " of a data-parallel run (aorta launch), whose batches are split over the ranks.");
        }
        GraphedStep.requireSupported(cfg, true);
        int perEpoch = stepsPerEpoch(cfg, rc.worldSize());
        int planned = plannedSteps(cfg, rc.worldSize());
        int k = cfg.training().gradientAccumulation();
        int micro = cfg.training().microBatchSize();
        long seed = cfg.dataset().seed();
        ShardingPlan plan = ShardingPlan.forRun(cfg, rc.worldSize(), rc.localWorldSize());
        StepSchedule schedule = StepSchedule.of(plan, cfg);
        RankLayout layout = new RankLayout(plan, rc.rank());
        SyntheticRankingDataset dataset = new SyntheticRankingDataset(cfg.dataset());
        LearningRate learningRate = new LearningRate(cfg.optimizer(), cfg.scheduler());
        MixedPrecision precision = cfg.training().mixedPrecision();
        ConcurrentLinkedQueue<DeviceActivity> records = new ConcurrentLinkedQueue<>();
        List<AutoCloseable> owned = new ArrayList<>();
        CuptiTracer tracer = null;
        int steps = 0;
        List<CollectiveBandwidth.Call> collectiveCalls = new ArrayList<>();
        int[] unpairedSteps = {0}; // counted on the reporting thread, read after it finished
        double firstLoss = Double.NaN;
        double lastLoss = Double.NaN;
        double[] stepMs = new double[planned];
        MemoryStats memory = null;
        Path outputDir = Path.of(cfg.training().outputDir());
        Path metricsFile = MetricsJsonlWriter.fileFor(outputDir, rc.rank());
        long loopStart = 0;
        long loopEnd = 0;
        boolean log = rc.rank() == 0;
        Throwable failure = null;
        RankLog rankLog = RankLog.open(outputDir, rc.rank(), cfg.logging().level());
        try (CudaDevice device = CudaDevice.open(rc.localRank());
             TrainStreams streams = new TrainStreams(device, cfg.distributed().streamPriorities())) {
            String deviceName = "GPU " + rc.localRank() + " (" + device.info().name() + ") of rank " + rc.rank();
            rankLog.info(String.format(Locale.ROOT, "rank %d of %d on %s: %s, %d steps", rc.rank(), rc.worldSize(),
                    deviceName, plan.mode().name().toLowerCase(Locale.ROOT), planned));
            MemoryFit.requireFits(MemoryEstimate.of(plan, cfg), device.driverMemoryInfo()[0], deviceName);
            Stream compute = streams.get(StreamRole.COMPUTE);
            OpContext ctx = new OpContext(device, compute);
            owned.add(ctx);
            ctx.autocast(switch (precision) {
                case BF16 -> DType.BF16;
                case FP16 -> DType.FP16;
                case NONE -> null;
            });
            FlatParameters flat = new FlatParameters(ctx, layout, compute);
            owned.add(flat);
            device.makeCurrent(); // NCCL binds a communicator to the device current on the calling thread
            NcclComm world = Nccl.get().initRank(rc.worldId(), rc.worldSize(), rc.rank());
            NcclCollectives collectives = new NcclCollectives(world, plan, rc.rank(), streams, flat);
            try {
                ctx.parameterStorage(flat);
                RankingModel model = new RankingModel(ctx, SingleGpuTrainer.rankingConfig(cfg), seed);
                ctx.parameterStorage(ParameterStorage.OWN);
                flat.requireEveryParameterCreated();
                owned.add(model);
                if (opts.initWeights() != null) {
                    model.loadFrom(opts.initWeights(), ParameterFile.read(opts.initWeights()));
                }
                if (opts.saveWeights() != null && log) {
                    Map<String, HostTensor> w = new LinkedHashMap<>();
                    model.exportTo(w);
                    AtomicFiles.writeParameters(opts.saveWeights(), w);
                }
                device.synchronize();
                flat.keepOwnShards();
                AdamW opt = new AdamW(ctx, flat.optimizerParameters(model.parameters()), cfg.optimizer().betas().get(0),
                        cfg.optimizer().betas().get(1), cfg.optimizer().eps(), cfg.optimizer().weightDecay(), compute);
                owned.add(opt);
                flat.gradNorm(opt.gradNorm());
                LossScaler scaler = precision == MixedPrecision.FP16 ? LossScaler.torchDefaults() : null;

                DeviceBatch[] deviceBatches = new DeviceBatch[2];
                for (int i = 0; i < deviceBatches.length; i++) {
                    deviceBatches[i] = new DeviceBatch(ctx, micro, dataset.shape());
                    owned.add(deviceBatches[i]);
                }
                List<PinnedBatch> slots = PinnedBatch.ring(device, micro, dataset.shape(),
                        cfg.dataloader().numWorkers());
                owned.addAll(slots);
                BatchLoader loader = new BatchLoader(dataset, micro,
                        (long) perEpoch * cfg.training().batchSize() * rc.worldSize(), slots,
                        cfg.dataloader().numWorkers(), slot -> slots.get(slot).awaitCopied(), rc.rank(),
                        rc.worldSize());
                owned.add(loader);
                AllReduceStress stress = null;
                if (cfg.training().injectAllreduceCopies()) {
                    stress = new AllReduceStress(device, collectives.world(), cfg.training().allreduceStressLevel());
                    owned.add(stress);
                }
                CudaRankDevice rank = new CudaRankDevice(device, streams, model, flat, opt, scaler, loader,
                        deviceBatches, seed, k, cfg.training().gradClipNorm(), stress);
                owned.add(rank);
                StepExecutor executor = new StepExecutor(schedule, layout, rank, collectives);

                tracer = CuptiTracer.start(records::add, null, 0, false);
                for (StreamRole role : StreamRole.values()) {
                    tracer.registerStream(device.contextAddress(), streams.get(role).address());
                }
                Map<Long, StreamRole> roles = streams.rolesByAddress();
                device.synchronize();
                tracer.flush();
                records.clear(); // set-up work (weights, shards, moments) is no step's
                if (log) {
                    out.printf(Locale.ROOT, "rank 0 of %d: %s, shard groups of %d, %d units, %d collectives per step%n",
                            rc.worldSize(), plan.mode().name().toLowerCase(Locale.ROOT), plan.shardGroupSize(),
                            plan.units().size(), schedule.ops().stream().filter(o -> o.isCollective()).count());
                }
                try (StepReporter reporter = new StepReporter(cfg, rc.rank(), rc.worldSize(), planned, perEpoch, true,
                        rc.localRank(), roles, log ? out : null, rankLog,
                        warn -> NvmlTelemetrySource.open(device.info().pciBusId(), warn))) {
                    // this thread issues the steps and collects their records every few steps; another reports them
                    BackgroundReporting reporting = new BackgroundReporting(e -> {
                        reporter.report(e.step(), e.loss(), e.gradNorm(), e.lr(), e.applied(), e.records(),
                                e.hostStartNs(), e.hostEndNs());
                        if (e.step() > 0) { // step 0 includes NCCL's connection set-up
                            Optional<List<CollectiveBandwidth.Call>> calls = StepCollectives.of(schedule.ops(),
                                    e.records(), roles, g -> g == Collective.Group.SHARD ? plan.shardGroupSize()
                                            : rc.worldSize() / plan.shardGroupSize());
                            calls.ifPresent(collectiveCalls::addAll);
                            unpairedSteps[0] += calls.isEmpty() ? 1 : 0;
                        }
                    });
                    StepRecordSplitter splitter = new StepRecordSplitter(tracer::flush, records,
                            streams.get(StreamRole.COMPUTE).address(), SingleGpuTrainer.FLUSH_EVERY);
                    try (reporting) {
                        loopStart = System.nanoTime();
                        long previousEnd = loopStart; // a step's time runs from the previous step's end to its own
                        for (int s = 0; s < planned && stop.received() == null; s++) {
                            Aorta.step(s);   // the agent's iterations (capture windows over steps); empty without it
                            double lr = learningRate.at(s);
                            rank.prepare(s, lr);
                            executor.issueStep();
                            awaitStepEnd(rank.end(), collectives, rc, s);
                            long t1 = System.nanoTime();
                            stepMs[s] = (t1 - previousEnd) / 1e6;
                            loopEnd = t1;
                            double loss = rank.loss();
                            reporting.ended(new BackgroundReporting.EndedStep(s, loss, rank.gradNorm(), lr,
                                    rank.applied(), previousEnd, t1));
                            reporting.recordsCame(splitter.stepEnded()); // every few steps, the device idle
                            previousEnd = t1;
                            if (s == 0) {
                                firstLoss = loss;
                            }
                            lastLoss = loss;
                            steps = s + 1;
                        }
                        Aorta.finish();   // the last step's iteration ends with it
                        reporting.recordsCame(splitter.flushPending());
                        reporting.finish();
                    }
                }
                memory = device.memoryStats();
                if (opts.saveFinalWeights() != null) {
                    gatherAll(schedule, layout, collectives, streams);
                    device.synchronize();
                    if (log) {
                        Map<String, HostTensor> w = new LinkedHashMap<>();
                        model.exportTo(w);
                        AtomicFiles.writeParameters(opts.saveFinalWeights(), w);
                    }
                }
            } catch (RuntimeException | IOException e) {
                collectives.abortAll(); // no rank may wait for this one's collectives (the others fail too)
                throw e;
            } finally {
                collectives.close(); // before the device's context goes; no-op after an abort
            }
            rankLog.info(stop.received() == null ? "finished " + steps + " steps"
                    : "stopped by " + stop.received() + " after " + steps + " of " + planned + " steps");
        } catch (Throwable t) {
            failure = t;
            rankLog.error("rank " + rc.rank() + " failed: " + t.getMessage());
            throw t;
        } finally {
            try {
                release(tracer, owned, rc.rank(), failure);
            } finally {
                rankLog.close();
            }
        }
        double[] done = Arrays.copyOf(stepMs, steps);
        Arrays.sort(done);
        double median = steps == 0 ? Double.NaN : done[steps / 2];
        return new TrainResult(steps, planned, firstLoss, lastLoss, median, (loopEnd - loopStart) / 1e9,
                stop.received(), metricsFile, CollectiveBandwidth.of(collectiveCalls), unpairedSteps[0], memory);
    }

    /**
     * Stops the tracer and closes what the run made, last made first. When the run failed, a release that fails
     * too (the device may be unusable after an aborted collective) is attached to that failure rather than hiding it.
     */
    private static void release(CuptiTracer tracer, List<AutoCloseable> owned, int rank, Throwable failure) {
        List<AutoCloseable> all = new ArrayList<>();
        if (tracer != null) {
            all.add(tracer::stop);
        }
        all.addAll(owned.reversed());
        for (AutoCloseable c : all) {
            try {
                c.close();
            } catch (Exception e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                } else {
                    throw new IllegalStateException("rank " + rank + ": releasing " + c + " failed: " + e.getMessage(),
                            e);
                }
            }
        }
    }

    /**
     * Waits for the step's end event while a watcher polls NCCL's asynchronous errors and the time; on an error, or
     * when the step has not ended within {@code --comm-timeout} (a peer died or hangs), it aborts the communicators,
     * which ends the wait, and the step fails naming the rank and the reason.
     */
    private static void awaitStepEnd(Event end, NcclCollectives collectives, RankContext rc, int step) {
        AtomicReference<String> failure = new AtomicReference<>();
        long deadline = System.nanoTime() + rc.commTimeout().toNanos();
        Thread watcher = Thread.ofPlatform().daemon().name("aorta-nccl-watch").start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                Optional<String> e = collectives.asyncError();
                if (e.isEmpty() && System.nanoTime() > deadline) {
                    e = Optional.of("rank " + rc.rank() + ": the step did not end within --comm-timeout "
                            + rc.commTimeout().toSeconds() + " s: a peer rank died or hangs in a collective");
                }
                if (e.isPresent()) {
                    failure.set(e.get());
                    collectives.abortAll();
                    return;
                }
                try {
                    Thread.sleep(WATCH_MS);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        });
        RuntimeException waitFailed = null;
        try {
            end.synchronize();
        } catch (RuntimeException e) {
            waitFailed = e;
        } finally {
            watcher.interrupt();
        }
        if (failure.get() != null) {
            throw new IllegalStateException(failure.get() + " (step " + step + "); communicators aborted", waitFailed);
        }
        if (waitFailed != null) {
            throw new IllegalStateException("rank " + rc.rank() + ": step " + step + " failed on the device: "
                    + waitFailed.getMessage(), waitFailed);
        }
    }

    /**
     * Every unit gathered into its buffer after the last step's optimizer, on the gathers' stream, so that the
     * model's views hold every current value (for --save-final-weights).
     */
    private static void gatherAll(StepSchedule schedule, RankLayout layout, NcclCollectives collectives,
                                  TrainStreams streams) {
        if (!layout.sharded()) {
            return;
        }
        ScheduledOp gather = schedule.ops().stream().filter(o -> o.kind() == OpKind.ALL_GATHER).findFirst()
                .orElseThrow(() -> new IllegalStateException("a sharded schedule without gathers"));
        for (FlatUnit unit : layout.plan().units()) {
            collectives.allGather(gather, layout.ownedParams(unit), layout.gathered(unit), Collective.Group.SHARD);
        }
        streams.get(gather.stream()).synchronize();
    }
}
