package dev.aorta.cli;

import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.KernelTimingMode;
import dev.aorta.workloads.harness.PriorityMode;
import dev.aorta.workloads.harness.SyncMode;
import dev.aorta.workloads.dist.DistributedEnvironment;
import picocli.CommandLine.Option;

import java.util.LinkedHashMap;
import java.util.Map;

/** The harness options shared by run, sweep and run-priority. */
final class HarnessOptionsMixin {
    @Option(names = {"-i", "--iterations"}, defaultValue = "100", description = "Measured iterations (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = {"-w", "--warmup"}, defaultValue = "10", description = "Warmup iterations, not measured (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--sync-mode", defaultValue = "per_iteration", paramLabel = "MODE",
            description = "per_iteration: host waits after every iteration; end_only: iterations back to back, "
                    + "per-iteration device time from a timing stream; none: only the final wait, no latency "
                    + "(default: ${DEFAULT-VALUE}).")
    String syncMode;

    @Option(names = {"-d", "--device"}, paramLabel = "N",
            description = "CUDA device index (default: LOCAL_RANK under a launcher, else 0).")
    Integer device;

    @Option(names = "--dtype", defaultValue = "fp32", paramLabel = "TYPE",
            description = "GEMM element type: fp32, tf32, bf16, fp16 (default: ${DEFAULT-VALUE}); GEMM workloads only.")
    String dtype;

    @Option(names = "--priorities", defaultValue = "none", paramLabel = "MODE",
            description = "Stream priorities: none (all default), all-high, mixed (first half low, rest high) "
                    + "(default: ${DEFAULT-VALUE}).")
    String priorities;

    @Option(names = {"-p", "--param"}, paramLabel = "NAME=VALUE",
            description = "A workload option (aorta list -v shows them), repeatable.")
    Map<String, String> params = new LinkedHashMap<>();

    @Option(names = "--kernel-timing", defaultValue = "auto", paramLabel = "SOURCE",
            description = "Per-kernel device timestamps of the traced iterations, run after the measured (untraced) "
                    + "ones: auto (CUPTI, else event pairs), cupti (or fail), event-pairs (default: ${DEFAULT-VALUE}).")
    String kernelTiming;

    @Option(names = "--timing-samples", defaultValue = "10", paramLabel = "N",
            description = "Iterations traced for per-kernel device times after the measured ones, which run untraced "
                    + "(default: ${DEFAULT-VALUE}).")
    int timingSamples;

    @Option(names = "--max-connections", paramLabel = "N",
            description = "Sets CUDA_DEVICE_MAX_CONNECTIONS (hardware work queues per device, 1..32) before the GPU "
                    + "opens; default: the environment's value.")
    Integer maxConnections;

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    HarnessOptions toOptions(int streams) {
        if (maxConnections != null && (maxConnections < 1 || maxConnections > 32)) {
            throw new IllegalArgumentException("--max-connections must be 1..32 (CUDA's range), got " + maxConnections);
        }
        // one GPU per rank under aorta launch, torchrun or srun, as the collective commands choose theirs
        int dev = device != null ? device : DistributedEnvironment.current().localRank();
        return new HarnessOptions(streams, iterations, warmup, SyncMode.parse(syncMode), dev,
                PriorityMode.parse(priorities), DType.parse(dtype), KernelTimingMode.parse(kernelTiming), timingSamples, params, maxConnections);
    }
}
