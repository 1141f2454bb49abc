package dev.aorta.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.aorta.core.metric.CollectiveBandwidth;
import dev.aorta.gpu.cuda.MemoryStats;
import dev.aorta.gpu.nccl.Nccl;
import dev.aorta.gpu.nccl.NcclUniqueId;
import dev.aorta.trainer.config.ConfigOptions;
import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.plan.ShardingPlan;
import dev.aorta.trainer.run.RankContext;
import dev.aorta.trainer.run.ShardedTrainer;
import dev.aorta.trainer.run.SingleGpuTrainer;
import dev.aorta.trainer.run.StopSignal;
import dev.aorta.trainer.run.TrainOptions;
import dev.aorta.trainer.run.TrainResult;
import dev.aorta.workloads.dist.DistributedEnvironment;
import dev.aorta.workloads.dist.Rendezvous;
import dev.aorta.workloads.result.ResultJson;
import dev.aorta.workloads.session.CommunicatorId;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code aorta train}: the ranking transformer trained on one GPU ({@link SingleGpuTrainer}), or, started by a
 * launcher ({@code aorta launch}, torchrun, Slurm), as one rank of a data-parallel run over NCCL
 * ({@link ShardedTrainer}), each rank writing {@code rank_<rr>_metrics.jsonl} with CUPTI device times. Rank 0 makes
 * the NCCL id of the world communicator and serves it on MASTER_ADDR:MASTER_PORT; the other ranks fetch it there
 * (the workloads' rendezvous).
 */
@Command(name = "train", mixinStandardHelpOptions = true,
        description = {"Train AORTA's ranking transformer and write per-step metrics (loss, lr, grad norm, step time,"
                + " per-stream device time and overlap from CUPTI) to <training.output_dir>/rank_<rr>_metrics.jsonl."
                + " SIGINT/SIGTERM stop after the current step.",
                "Alone it runs on one GPU; under a launcher (aorta launch -n N -- aorta train ...) each process is"
                + " one rank of a sharded (fsdp.sharding_strategy) or DDP (distributed.mode) run over NCCL."})
final class TrainCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions config;

    @Mixin
    CommunicationTimeouts timeouts = new CommunicationTimeouts();

    @Option(names = "--init-weights", paramLabel = "FILE",
            description = "Start from these weights (safetensors with the model's state_dict names) instead of the"
                    + " seeded initialisation.")
    Path initWeights;

    @Option(names = "--save-weights", paramLabel = "FILE",
            description = "Write the starting weights here before the first step (a PyTorch reference can load them).")
    Path saveWeights;

    @Option(names = "--save-final-weights", paramLabel = "FILE", description = "Write the weights here after the last step.")
    Path saveFinalWeights;

    @Option(names = "--dump-batches", paramLabel = "FILE",
            description = "Write every micro-batch, each step's learning rate and the optimizer settings here"
                    + " (safetensors), for scripts/trainer-reference.py to replay the run; held in memory until the end.")
    Path dumpBatches;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE",
            description = "Also write the run's result here as JSON (" + ResultJson.TRAIN_SCHEMA + ": steps, median"
                    + " step ms, loop s; rank 0's under a launcher), the file aorta overhead compares runs by.")
    Path output;

    @Option(names = "--verbose", description = "Print stack traces with errors.")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
        TrainerConfig cfg = config.load();
        timeouts.validate();
        DistributedEnvironment env = DistributedEnvironment.current();
        if (env.launcher() == DistributedEnvironment.Launcher.SINGLE) {
            return single(cfg);
        }
        return rank(cfg, env);
    }

    private int single(TrainerConfig cfg) throws Exception {
        int planned = SingleGpuTrainer.plannedSteps(cfg);
        System.out.printf(Locale.ROOT, "aorta train: %d steps, batch %d (%d micro-batches), %s, %d layers x %d,"
                        + " output %s%n", planned, cfg.training().batchSize(), cfg.training().gradientAccumulation(),
                cfg.training().mixedPrecision().name().toLowerCase(Locale.ROOT), cfg.model().numLayers(),
                cfg.model().modelDim(), cfg.training().outputDir());
        TrainResult r;
        try (StopSignal stop = StopSignal.install()) {
            r = SingleGpuTrainer.run(cfg, options(), System.out, stop);
        }
        printResult(r);
        writeResult(r);
        return 0;
    }

    /** One rank of a launched run: the plan is checked, then the NCCL id is exchanged, then the rank trains. */
    private int rank(TrainerConfig cfg, DistributedEnvironment env) throws Exception {
        ShardingPlan plan = checkedPlan(cfg, env);
        if (env.rank() == 0) {
            System.out.printf(Locale.ROOT, "aorta train: %s; %s, %d steps, batch %d per rank (%d micro-batches), %s,"
                            + " %d layers x %d, output %s%n", env.describe(),
                    plan.mode().name().toLowerCase(Locale.ROOT), ShardedTrainer.plannedSteps(cfg, env.worldSize()),
                    cfg.training().batchSize(), cfg.training().gradientAccumulation(),
                    cfg.training().mixedPrecision().name().toLowerCase(Locale.ROOT), cfg.model().numLayers(),
                    cfg.model().modelDim(), cfg.training().outputDir());
        }
        TrainResult r;
        try (StopSignal stop = StopSignal.install()) {
            if (env.rank() == 0) {
                NcclUniqueId id = Nccl.get().newUniqueId();
                if (!env.distributed()) {
                    r = ShardedTrainer.run(cfg, context(env, id), options(), System.out, stop);
                } else {
                    // the server hands the id to every other rank and stops by itself; open until NCCL's init is done
                    try (Rendezvous.Server server = Rendezvous.serve(new CommunicatorId(id.bytes()), env.masterAddr(),
                            env.rendezvousPort(), env.worldSize())) {
                        r = ShardedTrainer.run(cfg, context(env, id), options(), System.out, stop);
                    }
                }
            } else {
                CommunicatorId id = Rendezvous.fetch(env.masterAddr(), env.rendezvousPort(), env.rank(),
                        env.worldSize(), timeouts.rendezvous());
                r = ShardedTrainer.run(cfg, context(env, new NcclUniqueId(id.bytes())), options(), System.out, stop);
            }
        }
        if (env.rank() == 0) {
            printResult(r);
            writeResult(r);
        }
        return 0;
    }

    /**
     * The run's sharding plan, checked before any GPU work: a world that does not split into hybrid groups, or an
     * epoch without one whole global batch, is refused naming the key.
     */
    static ShardingPlan checkedPlan(TrainerConfig cfg, DistributedEnvironment env) {
        ShardedTrainer.plannedSteps(cfg, env.worldSize());
        return ShardingPlan.forRun(cfg, env.worldSize(), env.localWorldSize());
    }

    private RankContext context(DistributedEnvironment env, NcclUniqueId id) {
        return new RankContext(env.rank(), env.worldSize(), env.localRank(), env.localWorldSize(), id,
                timeouts.comm());
    }

    private TrainOptions options() {
        return new TrainOptions(initWeights, saveWeights, saveFinalWeights, dumpBatches);
    }

    private void writeResult(TrainResult r) throws IOException {
        if (output != null) {
            ResultJson.write(output, resultJson(r));
        }
    }

    /**
     * The result file: the median step is what {@code aorta overhead} compares (the trainer's own step time, from one
     * step's end to the next), so neither JVM start-up nor the model's set-up weighs in an A/B of the step.
     */
    static ObjectNode resultJson(TrainResult r) {
        ObjectNode root = ResultJson.MAPPER.createObjectNode();
        root.put("schema", ResultJson.TRAIN_SCHEMA);
        root.put("steps", r.steps());
        root.put("planned_steps", r.plannedSteps());
        root.put("median_step_ms", r.medianStepMs());
        root.put("loop_s", r.loopSeconds());
        root.put("first_loss", r.firstLoss());
        root.put("last_loss", r.lastLoss());
        if (r.stoppedBy() != null) {
            root.put("stopped_by", r.stoppedBy());
        }
        return root;
    }

    private static void printResult(TrainResult r) {
        System.out.printf(Locale.ROOT, "%s after %d of %d steps: loss %.6f -> %.6f, median step %.3f ms (host,"
                        + " end to end), loop %.2f s; metrics %s%n",
                r.stoppedBy() == null ? "done" : "stopped by " + r.stoppedBy(), r.steps(), r.plannedSteps(),
                r.firstLoss(), r.lastLoss(), r.medianStepMs(), r.loopSeconds(), r.metricsFile());
        printCollectives(r, System.out);
        printMemory(r.deviceMemory(), System.out);
    }

    /** The allocator's peak (rank 0's) and the ops that held the most of it. */
    static void printMemory(MemoryStats m, PrintStream out) {
        if (m == null) {
            return;
        }
        StringBuilder owners = new StringBuilder();
        m.atPeakByOwner().entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(8)
                .forEach(e -> owners.append(owners.isEmpty() ? "" : ", ").append(e.getKey()).append(' ')
                        .append(String.format(Locale.ROOT, "%.0f", e.getValue() / 1048576.0)));
        out.printf(Locale.ROOT, "device memory in tensors: peak %.0f MiB (reserved from the driver %.0f MiB); at the"
                        + " peak, MiB by op: %s%n", m.peakAllocatedBytes() / 1048576.0,
                m.peakReservedBytes() / 1048576.0, owners);
    }

    /**
     * Rank 0's collectives from device time, one line per kind, size S and group (nccl-tests' algbw = S / time and
     * busbw = algbw x its bus factor; docs/metrics.md#collective-bandwidth), from the second step on.
     */
    static void printCollectives(TrainResult r, PrintStream out) {
        int measured = Math.max(0, r.steps() - 1 - r.unpairedSteps());
        for (CollectiveBandwidth c : r.collectives()) {
            out.printf(Locale.ROOT, "collective %s S=%d B over %d ranks: %.1f per step, mean %.1f us, algbw %.1f GB/s,"
                            + " busbw %.1f GB/s (device time, %d steps)%n", c.kind().label(), c.messageBytes(),
                    c.groupSize(), measured == 0 ? 0.0 : (double) c.count() / measured, c.meanNs() / 1e3,
                    c.algbwGbps() == null ? Double.NaN : c.algbwGbps(),
                    c.busbwGbps() == null ? Double.NaN : c.busbwGbps(), measured);
        }
        if (r.unpairedSteps() > 0) {
            out.printf(Locale.ROOT, "collectives: %d steps left out (their collective kernels did not match the"
                    + " schedule's collectives)%n", r.unpairedSteps());
        }
    }
}
