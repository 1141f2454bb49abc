package dev.aorta.cli;

import dev.aorta.trainer.config.ConfigException;
import dev.aorta.trainer.config.ConfigOptions;
import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.plan.ShardingPlan;
import dev.aorta.trainer.run.SingleGpuTrainer;
import dev.aorta.trainer.run.StopSignal;
import dev.aorta.trainer.run.TrainOptions;
import dev.aorta.trainer.run.TrainResult;
import dev.aorta.workloads.dist.DistributedEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code aorta train}: the ranking transformer trained on one GPU, writing {@code rank_00_metrics.jsonl} with
 * CUPTI device times. Multi-rank training is not built yet: a launch of several ranks (aorta launch, torchrun,
 * Slurm) is refused before the GPU is touched.
 */
@Command(name = "train", mixinStandardHelpOptions = true,
        description = {"Train AORTA's ranking transformer on one GPU and write per-step metrics (loss, lr, grad norm,"
                + " step time, per-stream device time and overlap from CUPTI) to <training.output_dir>/"
                + "rank_00_metrics.jsonl. SIGINT/SIGTERM stop after the current step.",
                "Multi-rank training (several ranks under aorta launch, torchrun or Slurm) is not built yet."})
final class TrainCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions config;

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

    @Option(names = "--verbose", description = "Print stack traces with errors.")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
        TrainerConfig cfg = config.load();
        requireSingleRank(cfg, System.getenv());
        int planned = SingleGpuTrainer.plannedSteps(cfg);
        System.out.printf(Locale.ROOT, "aorta train: %d steps, batch %d (%d micro-batches), %s, %d layers x %d,"
                        + " output %s%n", planned, cfg.training().batchSize(), cfg.training().gradientAccumulation(),
                cfg.training().mixedPrecision().name().toLowerCase(Locale.ROOT), cfg.model().numLayers(),
                cfg.model().modelDim(), cfg.training().outputDir());
        TrainResult r;
        try (StopSignal stop = StopSignal.install()) {
            r = SingleGpuTrainer.run(cfg, new TrainOptions(initWeights, saveWeights, saveFinalWeights, dumpBatches),
                    System.out, stop);
        }
        System.out.printf(Locale.ROOT, "%s after %d of %d steps: loss %.6f -> %.6f, median step %.3f ms (host,"
                        + " launch to completion), loop %.2f s; metrics %s%n",
                r.stoppedBy() == null ? "done" : "stopped by " + r.stoppedBy(), r.steps(), r.plannedSteps(),
                r.firstLoss(), r.lastLoss(), r.medianStepMs(), r.loopSeconds(), r.metricsFile());
        return 0;
    }

    /**
     * Refuses a multi-rank launch (aorta launch's, torchrun's or Slurm's variables, read as the GPU commands read
     * them), which this trainer cannot run yet. A configuration that could not run on that world either (a hybrid
     * group that does not divide it) is named first, so that it is not found only once multi-rank exists.
     */
    static void requireSingleRank(TrainerConfig cfg, Map<String, String> env) {
        DistributedEnvironment world = DistributedEnvironment.from(env);
        if (!world.distributed()) {
            return;
        }
        String who = "rank " + world.rank() + " of " + world.worldSize() + " (" + world.launcher().label() + ")";
        try {
            ShardingPlan.forRun(cfg, world.worldSize(), world.localWorldSize());
        } catch (ConfigException e) {
            throw new ConfigException(who + ": " + e.getMessage());
        }
        throw new IllegalArgumentException(who + ": aorta train runs on one GPU only: multi-rank (sharded or DDP)"
                + " training is not built yet; run one rank (without a launcher, NPROC=1 scripts/launch_cuda.sh,"
                + " torchrun --nproc-per-node 1 or srun -n 1).");
    }
}
