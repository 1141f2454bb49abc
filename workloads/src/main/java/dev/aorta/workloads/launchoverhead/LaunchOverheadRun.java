package dev.aorta.workloads.launchoverhead;

import dev.aorta.workloads.gpu.DeviceInfo;
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
 * Runs launch_overhead on one rank: the small correctness check, then every pattern asked for, measured for a
 * fixed time with PCIe sampled alongside, or skipped with its reason.
 */
public final class LaunchOverheadRun {
    /** The single-process world: rank 0 of 1. The multi-GPU launcher will pass its own rank and world size. */
    static final int WORLD_SIZE = 1;

    private final Function<CodebookProblem, CodebookDevice> devices;
    private final Supplier<PcieMonitor> pcie;
    private final LongSupplier clock;

    /**
     * @param devices makes the device that runs a problem (the GPU, or the host model in tests)
     * @param pcie    a fresh monitor per measured pattern
     * @param clock   monotonic nanoseconds
     */
    public LaunchOverheadRun(Function<CodebookProblem, CodebookDevice> devices, Supplier<PcieMonitor> pcie,
                             LongSupplier clock) {
        this.devices = devices;
        this.pcie = pcie;
        this.clock = clock;
    }

    /** Only the correctness check (the lead's GPU correctness mode). */
    public CorrectnessCheck.Result check(LaunchOverheadOptions options) {
        return CorrectnessCheck.run(devices, options.seed());
    }

    public LaunchOverheadResult run(LaunchOverheadOptions options, DeviceInfo deviceInfo) {
        CorrectnessCheck.Result correctness = check(options);
        List<PatternResult> results = new ArrayList<>();
        String balancedProblem = null;
        CodebookProblem problem = CodebookProblem.random(options.shape(), options.seed());
        CodebookDevice device = null;
        try {
            for (Pattern pattern : options.patterns()) {
                Optional<String> skip = pattern.skipReason(WORLD_SIZE);
                if (skip.isPresent()) {
                    results.add(PatternResult.skipped(pattern, skip.get()));
                    continue;
                }
                if (device == null) {
                    device = devices.apply(problem);
                }
                results.add(measure(pattern, device, options));
                if (pattern == Pattern.BALANCED) {
                    balancedProblem = CodebookReference.checkBalanced(options.shape(),
                            CorrectnessCheck.assignments(device)).orElse(null);
                }
            }
        } finally {
            if (device != null) {
                device.close();
            }
        }
        return new LaunchOverheadResult(Instant.now(), options, deviceInfo, WORLD_SIZE,
                List.of(new LaunchOverheadResult.RankResult(0, options.device(), results)), correctness, balancedProblem);
    }

    private PatternResult measure(Pattern pattern, CodebookDevice device, LaunchOverheadOptions options) {
        Runnable step = switch (pattern) {
            case ARGMIN -> () -> CodebookSteps.argmin(device);
            case BALANCED -> () -> CodebookSteps.balanced(device);
            case ALL_REDUCE, COMBINED -> throw new IllegalStateException(pattern.label() + " has no single-GPU step");
        };
        for (int i = 0; i < options.warmupSteps(); i++) {
            step.run();
        }
        PcieMonitor monitor = pcie.get();
        monitor.start();
        FixedDurationLoop.Measurement m;
        PcieStats stats;
        try {
            m = FixedDurationLoop.run(step, device.counters(), options.seconds(), clock);
        } finally {
            stats = monitor.stop();
        }
        return PatternResult.measured(pattern, m, stats);
    }
}
