package dev.aorta.workloads.launchoverhead;

import dev.aorta.workloads.dist.CommWatchdog;
import dev.aorta.gpu.cuda.DeviceInfo;
import dev.aorta.workloads.launchoverhead.pcie.PcieMonitor;
import dev.aorta.workloads.launchoverhead.pcie.PcieStats;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Runs launch_overhead on one rank: the small correctness check, then every pattern asked for, measured with
 * PCIe sampled alongside, or skipped with its reason. With several ranks (a communicator), the collective
 * patterns run too, and every rank's results are gathered so that each rank holds the whole table.
 */
public final class LaunchOverheadRun {
    /**
     * Timed steps every rank runs after the warmup of a collective pattern (one: a balanced step at the seed size
     * takes about a second or more); the ranks then agree on the step count that fills the measured time at the
     * slowest rank's pace.
     */
    static final int CALIBRATION_STEPS = 1;

    private final Function<CodebookProblem, CodebookDevice> devices;
    private final Supplier<PcieMonitor> pcie;
    private final LongSupplier clock;
    private final Function<CodebookShape, StageAllReduce> collectives;
    private final CommWatchdog watchdog;

    /**
     * One rank, no communicator: the collective patterns are skipped.
     *
     * @param devices makes the device that runs a problem (the GPU, or the host model in tests)
     * @param pcie    a fresh monitor per measured pattern
     * @param clock   monotonic nanoseconds
     */
    public LaunchOverheadRun(Function<CodebookProblem, CodebookDevice> devices, Supplier<PcieMonitor> pcie,
                             LongSupplier clock) {
        this(devices, pcie, clock, null, null);
    }

    /**
     * One rank of several.
     *
     * @param collectives this rank's collective work over the communicator, for a shape (the world size is its size)
     * @param watchdog    armed while collectives may be outstanding and told of every finished step; null for none
     */
    public LaunchOverheadRun(Function<CodebookProblem, CodebookDevice> devices, Supplier<PcieMonitor> pcie,
                             LongSupplier clock, Function<CodebookShape, StageAllReduce> collectives,
                             CommWatchdog watchdog) {
        this.devices = devices;
        this.pcie = pcie;
        this.clock = clock;
        this.collectives = collectives;
        this.watchdog = watchdog;
    }

    /** Only the correctness check (the lead's GPU correctness mode). */
    public CorrectnessCheck.Result check(LaunchOverheadOptions options) {
        return CorrectnessCheck.run(devices, options.seed());
    }

    public LaunchOverheadResult run(LaunchOverheadOptions options, DeviceInfo deviceInfo) {
        CorrectnessCheck.Result correctness = check(options);
        if (watchdog != null) {
            watchdog.arm();
        }
        try (StageAllReduce comm = collectives == null ? null : collectives.apply(options.shape())) {
            int worldSize = comm == null ? 1 : comm.size();
            int rank = comm == null ? 0 : comm.rank();
            List<PatternResult> results = new ArrayList<>();
            String balancedProblem = null;
            String allReduceProblem = null;
            CodebookProblem problem = CodebookProblem.random(options.shape(), options.seed());
            CodebookDevice device = null;
            try {
                for (Pattern pattern : options.patterns()) {
                    Optional<String> skip = pattern.skipReason(worldSize);
                    if (skip.isPresent()) {
                        results.add(PatternResult.skipped(pattern, skip.get()));
                        continue;
                    }
                    if (device == null && pattern != Pattern.ALL_REDUCE) {
                        device = devices.apply(problem);
                    }
                    results.add(measure(pattern, device, comm, options));
                    if (pattern == Pattern.BALANCED) {
                        balancedProblem = CodebookReference.checkBalanced(options.shape(),
                                CorrectnessCheck.assignments(device)).orElse(null);
                    }
                    if (pattern.collective() && allReduceProblem == null) {
                        allReduceProblem = comm.check().orElse(null);
                    }
                }
            } finally {
                if (device != null) {
                    device.close();
                }
            }
            LaunchOverheadResult.RankResult mine = new LaunchOverheadResult.RankResult(rank, options.device(), results);
            List<LaunchOverheadResult.RankResult> ranks = List.of(mine);
            if (comm != null) {
                GatheredRanks gathered = GatheredRanks.gather(comm, mine, allReduceProblem != null);
                ranks = gathered.ranks();
                allReduceProblem = gathered.allReduceProblem(allReduceProblem);
            }
            return new LaunchOverheadResult(Instant.now(), options, deviceInfo, worldSize, ranks, correctness,
                    balancedProblem, allReduceProblem);
        } finally {
            if (watchdog != null) {
                watchdog.disarm();
            }
        }
    }

    private PatternResult measure(Pattern pattern, CodebookDevice device, StageAllReduce comm,
                                  LaunchOverheadOptions options) {
        int stages = options.shape().stages();
        Runnable issue = switch (pattern) {
            case ARGMIN -> () -> CodebookSteps.argmin(device);
            case BALANCED -> () -> CodebookSteps.balanced(device);
            case ALL_REDUCE -> () -> CodebookSteps.allReduce(comm, stages);
            case COMBINED -> () -> CodebookSteps.combined(device, comm);
        };
        Runnable step = watchdog == null ? issue : () -> {
            issue.run();
            watchdog.progress();
        };
        List<LaunchCounters> counters = switch (pattern) {
            case ARGMIN, BALANCED -> List.of(device.counters());
            case ALL_REDUCE -> List.of(comm.counters());
            case COMBINED -> List.of(device.counters(), comm.counters());
        };
        for (int i = 0; i < options.warmupSteps(); i++) {
            step.run();
        }
        int agreedSteps = pattern.collective() ? agreeOnSteps(step, comm, options.seconds()) : 0;
        PcieMonitor monitor = pcie.get();
        monitor.start();
        FixedDurationLoop.Measurement m;
        PcieStats stats;
        try {
            m = pattern.collective()
                    ? FixedDurationLoop.runSteps(step, counters, agreedSteps, clock)
                    : FixedDurationLoop.run(step, counters, options.seconds(), clock);
        } finally {
            stats = monitor.stop();
        }
        return PatternResult.measured(pattern, m, stats);
    }

    /**
     * Every rank must issue the same collectives, so a collective pattern cannot stop on each rank's own clock:
     * each rank times {@value #CALIBRATION_STEPS} steps, the ranks exchange their mean step times, and all run
     * the step count that fills {@code seconds} at the slowest rank's pace (at least one step).
     */
    private int agreeOnSteps(Runnable step, StageAllReduce comm, double seconds) {
        long start = clock.getAsLong();
        for (int i = 0; i < CALIBRATION_STEPS; i++) {
            step.run();
        }
        float meanStepMs = (float) ((clock.getAsLong() - start) / 1e6 / CALIBRATION_STEPS);
        float slowest = 0;
        for (float[] rank : comm.gather(new float[] {meanStepMs})) {
            slowest = Math.max(slowest, rank[0]);
        }
        return stepsFor(seconds, slowest);
    }

    static int stepsFor(double seconds, double stepMs) {
        if (!(stepMs > 0)) {
            return 1;
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.round(seconds * 1e3 / stepMs)));
    }
}
