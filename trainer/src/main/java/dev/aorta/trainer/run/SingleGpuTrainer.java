package dev.aorta.trainer.run;

import dev.aorta.api.Aorta;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.DeviceBuffer;
import dev.aorta.gpu.cuda.Event;
import dev.aorta.gpu.cuda.MemoryStats;
import dev.aorta.gpu.cuda.PinnedHostBuffer;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.gpu.cupti.CuptiTracer;
import dev.aorta.model.DType;
import dev.aorta.model.GraphScalars;
import dev.aorta.model.HostTensor;
import dev.aorta.model.LossScaler;
import dev.aorta.model.OpContext;
import dev.aorta.model.ParameterFile;
import dev.aorta.model.ops.AdamW;
import dev.aorta.model.ranking.RankingConfig;
import dev.aorta.model.ranking.RankingModel;
import dev.aorta.trainer.config.ConfigException;
import dev.aorta.trainer.config.ModelConfig;
import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.config.TrainingConfig.MixedPrecision;
import dev.aorta.trainer.data.BatchLoader;
import dev.aorta.trainer.data.SyntheticRankingDataset;
import dev.aorta.trainer.log.RankLog;
import dev.aorta.trainer.loop.LearningRate;
import dev.aorta.trainer.metrics.MetricsJsonlWriter;
import dev.aorta.trainer.plan.MemoryEstimate;
import dev.aorta.trainer.plan.MemoryFit;
import dev.aorta.trainer.plan.ShardingPlan;
import dev.aorta.trainer.schedule.StreamRole;
import dev.aorta.trainer.telemetry.NvmlTelemetrySource;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * {@code aorta train} on one GPU (world size 1): the ranking model trained on the synthetic dataset with AdamW,
 * the configured schedule, clipping, precision, dropout and gradient accumulation, on four streams.
 *
 * <p>Per optimizer step, on the device:
 * <ol>
 *   <li>compute: a start marker; aux waits for it;</li>
 *   <li>per micro-batch m of k: aux copies the batch from page-locked memory into one of two device batches
 *       (after compute has finished with that buffer's previous batch); compute waits for the copy, runs
 *       forward and loss, and backward with d loss = 1/k (times the loss scale under fp16), so that the summed
 *       gradients are those of the mean loss over the k micro-batches;</li>
 *   <li>compute: gradient norm, clipping and AdamW on every parameter (fp32 master weights);</li>
 *   <li>compute waits for aux, then an end marker.</li>
 * </ol>
 * The host then waits for the end marker and reads the loss and the norm that were copied into page-locked memory
 * on the way; it issues step s + 1 only after step s ended (AORTA synchronises every step too). Every
 * {@link #FLUSH_EVERY} steps, with the device idle, it collects the kernel and copy records from CUPTI
 * ({@link StepRecordSplitter}), and another thread writes each step's metrics line ({@link BackgroundReporting}):
 * device times are CUPTI's ({@code device_time_source: cupti}).
 * The allreduce and reducescatter streams exist with their priorities but carry nothing with one rank.
 *
 * <p>With {@code compile.enabled} ({@link GraphedStep}), aux copies the k micro-batches into k fixed device
 * batches, the step's learning rate, AdamW bias corrections and dropout base offset are written to device memory
 * ({@link GraphScalars}), and compute's work from zero_grad to the norm's copy is issued eagerly at step 0, captured
 * as a CUDA graph at step 1 and replayed from then on: the same kernels with the same arguments as the eager step.
 */
public final class SingleGpuTrainer {
    /** Two device batches: the copy of micro-batch m + 1 may run while compute still reads micro-batch m. */
    private static final int DEVICE_BATCHES = 2;
    /** Steps between two CUPTI flushes (each costs the host about a millisecond with the device idle). */
    static final int FLUSH_EVERY = 10;
    /** compile.enabled's device-held values: the dropout base (a 64-bit word pair), then AdamW's three floats. */
    private static final int PHILOX_BASE_WORD = 0;
    private static final int HYPERPARAMETER_WORD = 2;
    private static final int GRAPH_SCALAR_WORDS = 5;

    private SingleGpuTrainer() {
    }

    /** Steps an epoch has: whole optimizer steps only (a partial last batch is dropped). */
    public static int stepsPerEpoch(TrainerConfig cfg) {
        int steps = cfg.dataset().numSamples() / cfg.training().batchSize();
        if (steps == 0) {
            throw new ConfigException("dataset.num_samples is " + cfg.dataset().numSamples()
                    + ", expected at least training.batch_size (" + cfg.training().batchSize()
                    + "), since an epoch is made of whole batches.");
        }
        return steps;
    }

    /** Optimizer steps the run plans: {@code training.max_steps}, or {@code epochs} whole epochs when it is 0. */
    public static int plannedSteps(TrainerConfig cfg) {
        int max = cfg.training().maxSteps();
        return max > 0 ? max : Math.multiplyExact(cfg.training().epochs(), stepsPerEpoch(cfg));
    }

    static RankingConfig rankingConfig(TrainerConfig cfg) {
        ModelConfig m = cfg.model();
        return new RankingConfig(cfg.training().microBatchSize(), cfg.dataset().sequenceLength(),
                m.numDenseFeatures(), m.denseDim(), cfg.dataset().sparseFeatures(), m.vocabSize(), m.embeddingDim(),
                m.modelDim(), m.numHeads(), m.numLayers(), m.mlpHiddenDim(), (float) m.dropout());
    }

    public static TrainResult run(TrainerConfig cfg, TrainOptions opts, PrintStream out, StopSignal stop)
            throws IOException {
        GraphedStep.requireSupported(cfg, false);
        int planned = plannedSteps(cfg);
        int perEpoch = stepsPerEpoch(cfg);
        int k = cfg.training().gradientAccumulation();
        int micro = cfg.training().microBatchSize();
        long seed = cfg.dataset().seed();
        SyntheticRankingDataset dataset = new SyntheticRankingDataset(cfg.dataset());
        LearningRate learningRate = new LearningRate(cfg.optimizer(), cfg.scheduler());
        double clip = cfg.training().gradClipNorm();
        MixedPrecision precision = cfg.training().mixedPrecision();
        boolean graphed = cfg.compile().enabled();
        Map<String, HostTensor> dump = opts.dumpBatches() == null ? null : new LinkedHashMap<>();
        List<Double> lrs = new ArrayList<>();
        ConcurrentLinkedQueue<DeviceActivity> records = new ConcurrentLinkedQueue<>();
        List<AutoCloseable> owned = new ArrayList<>();
        CuptiTracer tracer = null;
        int steps = 0;
        double firstLoss = Double.NaN;
        double lastLoss = Double.NaN;
        double[] stepMs = new double[planned];
        MemoryStats memory = null;
        Path metricsFile = MetricsJsonlWriter.fileFor(Path.of(cfg.training().outputDir()), 0);
        long loopStart = 0;
        long loopEnd = 0;
        RankLog log = RankLog.open(Path.of(cfg.training().outputDir()), 0, cfg.logging().level());
        try (CudaDevice device = CudaDevice.open(0);
             TrainStreams streams = new TrainStreams(device, cfg.distributed().streamPriorities())) {
            String deviceName = "GPU 0 (" + device.info().name() + ")";
            log.info(String.format(Locale.ROOT, "training on %s: %d steps, %d micro-batch(es) of %d per step, %s",
                    deviceName, planned, k, micro, precision.name().toLowerCase(Locale.ROOT)));
            requireFits(cfg, device.driverMemoryInfo()[0], deviceName);
            if (cfg.training().injectAllreduceCopies()) {
                // as AORTA, which injects it only when torch.distributed is initialised; said, not silent
                String skip = "training.inject_allreduce_copies is true, but one GPU without a launcher has no"
                        + " collectives to stress: run it under aorta launch (any number of ranks) to inject them";
                log.warning(skip);
                out.println("warning: " + skip);
            }
            Stream compute = streams.get(StreamRole.COMPUTE);
            Stream aux = streams.get(StreamRole.AUX);
            OpContext ctx = new OpContext(device, compute);
            owned.add(ctx);
            ctx.autocast(switch (precision) {
                case BF16 -> DType.BF16;
                case FP16 -> DType.FP16;
                case NONE -> null;
            });
            RankingModel model = new RankingModel(ctx, rankingConfig(cfg), seed);
            owned.add(model);
            if (opts.initWeights() != null) {
                model.loadFrom(opts.initWeights(), ParameterFile.read(opts.initWeights()));
            }
            if (opts.saveWeights() != null) {
                Map<String, HostTensor> w = new LinkedHashMap<>();
                model.exportTo(w);
                AtomicFiles.writeParameters(opts.saveWeights(), w);
            }
            RankingModel.Activations acts = model.activations();
            owned.add(acts);
            AdamW opt = new AdamW(ctx, model.parameters(), cfg.optimizer().betas().get(0),
                    cfg.optimizer().betas().get(1), cfg.optimizer().eps(), cfg.optimizer().weightDecay(), compute);
            owned.add(opt);
            LossScaler scaler = precision == MixedPrecision.FP16 ? LossScaler.torchDefaults() : null;
            GraphScalars scalars = null;
            GraphedStep graphedStep = null;
            if (graphed) {
                scalars = new GraphScalars(device, GRAPH_SCALAR_WORDS);
                graphedStep = new GraphedStep(compute);
                owned.addAll(List.of(scalars, graphedStep));
                ctx.philoxBaseFrom(scalars.address(PHILOX_BASE_WORD));
            }

            // a captured step reads micro-batch m of every step from the same device batch
            int deviceBatchCount = graphed ? k : DEVICE_BATCHES;
            DeviceBatch[] deviceBatches = new DeviceBatch[deviceBatchCount];
            Event[] h2dDone = new Event[deviceBatchCount];
            Event[] deviceFree = new Event[deviceBatchCount];
            boolean[] deviceUsed = new boolean[deviceBatchCount];
            for (int i = 0; i < deviceBatchCount; i++) {
                deviceBatches[i] = new DeviceBatch(ctx, micro, dataset.shape());
                h2dDone[i] = device.createEvent(false);
                deviceFree[i] = device.createEvent(false);
                owned.addAll(List.of(deviceBatches[i], h2dDone[i], deviceFree[i]));
            }
            List<PinnedBatch> slots = PinnedBatch.ring(device, micro, dataset.shape(), cfg.dataloader().numWorkers());
            owned.addAll(slots);
            PinnedHostBuffer[] lossHost = new PinnedHostBuffer[k];
            for (int m = 0; m < k; m++) {
                lossHost[m] = device.allocatePinned(4);
                owned.add(lossHost[m]);
            }
            PinnedHostBuffer normHost = device.allocatePinned(4);
            owned.add(normHost);
            DeviceBuffer marker = device.allocate(StepRecordSplitter.END_MARKER_BYTES);
            owned.add(marker);
            Event start = device.createEvent(false);
            Event auxDone = device.createEvent(false);
            Event end = device.createEvent(false);
            owned.addAll(List.of(start, auxDone, end));
            BatchLoader loader = new BatchLoader(dataset, micro, (long) perEpoch * cfg.training().batchSize(), slots,
                    cfg.dataloader().numWorkers(), slot -> slots.get(slot).awaitCopied());
            owned.add(loader);

            tracer = CuptiTracer.start(records::add, null, 0, false);
            for (StreamRole role : StreamRole.values()) {
                tracer.registerStream(device.contextAddress(), streams.get(role).address());
            }
            Map<Long, StreamRole> roles = streams.rolesByAddress();
            device.synchronize();
            tracer.flush();
            records.clear(); // set-up work (weights, moments) is no step's
            try (StepReporter reporter = new StepReporter(cfg, 0, 1, planned, perEpoch, false, 0, roles, out, log,
                    warn -> NvmlTelemetrySource.open(device.info().pciBusId(), warn))) {
                BackgroundReporting reporting = new BackgroundReporting(e -> reporter.report(e.step(), e.loss(),
                        e.gradNorm(), e.lr(), e.applied(), e.records(), e.hostStartNs(), e.hostEndNs()));
                StepRecordSplitter splitter = new StepRecordSplitter(tracer::flush, records, compute.address(),
                        FLUSH_EVERY);
                try (reporting) { // on a failure, the lines of the steps that ended are still written
                    loopStart = System.nanoTime();
                    long previousEnd = loopStart; // a step's time runs from the previous step's end to its own
                    for (int s = 0; s < planned && stop.received() == null; s++) {
                        Aorta.step(s);   // the agent's iterations (capture windows over steps); empty without it
                        double lr = learningRate.at(s);
                        lrs.add(lr);
                        marker.fill8Async((byte) 0, StepRecordSplitter.START_MARKER_BYTES, compute);
                        start.record(compute);
                        aux.waitFor(start);
                        boolean applied = true;
                        float scale = scaler == null ? 1f : scaler.scale();
                        if (graphed) {
                            // the step's micro-batches into the fixed device batches the graph reads
                            for (int m = 0; m < k; m++) {
                                long n = (long) s * k + m;
                                PinnedBatch host = (PinnedBatch) loader.acquire(n);
                                if (dump != null) {
                                    host.exportTo(String.format(Locale.ROOT, "step%05d.micro%03d.", s, m), dump);
                                }
                                host.copyTo(deviceBatches[m], aux);
                            }
                            h2dDone[0].record(aux);
                            compute.waitFor(h2dDone[0]);
                            // what changes from step to step, where the graph reads it
                            float[] h = opt.nextStepHyperparameters(lr);
                            for (int i = 0; i < h.length; i++) {
                                scalars.setFloat(HYPERPARAMETER_WORD + i, h[i]);
                            }
                            scalars.setLong(PHILOX_BASE_WORD, (long) s * k * model.philoxOffsetsPerStep());
                            scalars.upload(compute);
                            long hyperparameters = scalars.address(HYPERPARAMETER_WORD);
                            graphedStep.issue(() -> {
                                opt.zeroGrad(compute);
                                for (int m = 0; m < k; m++) {
                                    DeviceBatch b = deviceBatches[m];
                                    // micro-batch m's dropout offsets; the base adds the step's
                                    model.forward(b.dense, b.categorical, b.target, b.importance, acts, seed, m,
                                            compute);
                                    acts.loss().copyToAsync(lossHost[m], compute);
                                    model.backward(b.dense, b.categorical, b.target, b.importance, 1f / k, acts, seed,
                                            m, compute);
                                }
                                opt.computeGradNorm(compute); // logged whether or not it clips
                                opt.stepWithDeviceHyperparameters(hyperparameters, clip, compute);
                                opt.gradNorm().copyToAsync(normHost, compute);
                            });
                        } else {
                            opt.zeroGrad(compute);
                            for (int m = 0; m < k; m++) {
                                long n = (long) s * k + m;
                                PinnedBatch host = (PinnedBatch) loader.acquire(n);
                                if (dump != null) {
                                    host.exportTo(String.format(Locale.ROOT, "step%05d.micro%03d.", s, m), dump);
                                }
                                int d = (int) (n % DEVICE_BATCHES);
                                DeviceBatch b = deviceBatches[d];
                                if (deviceUsed[d]) {
                                    aux.waitFor(deviceFree[d]);
                                }
                                host.copyTo(b, aux);
                                h2dDone[d].record(aux);
                                compute.waitFor(h2dDone[d]);
                                model.forward(b.dense, b.categorical, b.target, b.importance, acts, seed, n, compute);
                                acts.loss().copyToAsync(lossHost[m], compute);
                                model.backward(b.dense, b.categorical, b.target, b.importance, scale / k, acts, seed, n,
                                        compute);
                                deviceFree[d].record(compute);
                                deviceUsed[d] = true;
                            }
                            if (scaler != null) {
                                applied = scaler.step(opt, lr, clip, compute);
                            } else {
                                if (clip <= 0) {
                                    opt.computeGradNorm(compute); // logged whether or not it clips
                                }
                                opt.step(lr, clip, compute);
                            }
                            opt.gradNorm().copyToAsync(normHost, compute);
                        }
                        auxDone.record(aux);
                        compute.waitFor(auxDone);
                        marker.fill8Async((byte) 0, StepRecordSplitter.END_MARKER_BYTES, compute);
                        end.record(compute);
                        end.synchronize();
                        long t1 = System.nanoTime();
                        stepMs[s] = (t1 - previousEnd) / 1e6;
                        loopEnd = t1;

                        double loss = 0;
                        for (int m = 0; m < k; m++) {
                            loss += lossHost[m].segment().get(ValueLayout.JAVA_FLOAT, 0);
                        }
                        loss /= k;
                        double gradNorm = normHost.segment().get(ValueLayout.JAVA_FLOAT, 0) / (double) scale;
                        reporting.ended(new BackgroundReporting.EndedStep(s, loss, gradNorm, lr, applied, previousEnd,
                                t1));
                        reporting.recordsCame(splitter.stepEnded()); // every few steps, with the device idle
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
                Map<String, HostTensor> w = new LinkedHashMap<>();
                model.exportTo(w);
                AtomicFiles.writeParameters(opts.saveFinalWeights(), w);
            }
            if (dump != null) {
                writeDump(opts.dumpBatches(), dump, lrs, cfg);
            }
            log.info(stop.received() == null ? "finished " + steps + " steps"
                    : "stopped by " + stop.received() + " after " + steps + " of " + planned + " steps");
        } catch (RuntimeException | IOException e) {
            log.error("training failed: " + e.getMessage());
            throw e;
        } finally {
            if (tracer != null) {
                tracer.stop();
            }
            for (int i = owned.size() - 1; i >= 0; i--) {
                try {
                    owned.get(i).close();
                } catch (Exception e) {
                    throw new IllegalStateException("releasing " + owned.get(i) + " failed: " + e.getMessage(), e);
                }
            }
            log.close();
        }
        double[] done = Arrays.copyOf(stepMs, steps);
        Arrays.sort(done);
        double median = steps == 0 ? Double.NaN : done[steps / 2];
        return new TrainResult(steps, planned, firstLoss, lastLoss, median, (loopEnd - loopStart) / 1e9,
                stop.received(), metricsFile, List.of(), 0, memory);
    }

    /** The memory refusal, before any model memory is allocated. */
    static void requireFits(TrainerConfig cfg, long freeBytes, String device) {
        MemoryFit.requireFits(MemoryEstimate.of(ShardingPlan.forRun(cfg, 1, 1), cfg), freeBytes, device);
    }

    /**
     * The batch dump: every micro-batch ({@code stepSSSSS.microMMM.dense/categorical/target/importance}), the
     * learning rate of every step run ({@code lr}), and the settings a replay needs as one-element tensors
     * ({@code hparams.*}).
     */
    private static void writeDump(Path file, Map<String, HostTensor> dump, List<Double> lrs, TrainerConfig cfg) {
        float[] lr = new float[lrs.size()];
        for (int i = 0; i < lr.length; i++) {
            lr[i] = lrs.get(i).floatValue();
        }
        dump.put("lr", HostTensor.ofFloats(DType.FP32, new int[] {lr.length}, lr));
        Map<String, Double> h = new LinkedHashMap<>();
        h.put("beta1", cfg.optimizer().betas().get(0));
        h.put("beta2", cfg.optimizer().betas().get(1));
        h.put("eps", cfg.optimizer().eps());
        h.put("weight_decay", cfg.optimizer().weightDecay());
        h.put("grad_clip_norm", cfg.training().gradClipNorm());
        h.put("gradient_accumulation", (double) cfg.training().gradientAccumulation());
        h.put("num_heads", (double) cfg.model().numHeads());
        h.put("dropout", cfg.model().dropout());
        h.forEach((name, v) -> dump.put("hparams." + name, HostTensor.ofFloats(DType.FP32, new int[] {1},
                new float[] {v.floatValue()})));
        AtomicFiles.writeParameters(file, dump);
    }
}
