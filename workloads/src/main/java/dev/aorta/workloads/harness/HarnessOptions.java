package dev.aorta.workloads.harness;

import dev.aorta.workloads.session.DType;

import java.util.Map;

/**
 * The options of one run, printed with every result.
 *
 * @param streams       workload streams
 * @param iterations    measured iterations
 * @param warmup        iterations run (and waited for) before measuring
 * @param kernelTiming  where per-kernel device timestamps come from
 * @param timingSamples iterations traced (CUPTI or event pairs) after the measured ones, which run untraced
 * @param params        the workload's own options as given ({@code --param name=value})
 * @param maxConnections CUDA_DEVICE_MAX_CONNECTIONS set for this process before the GPU opened, or null
 */
public record HarnessOptions(int streams, int iterations, int warmup, SyncMode syncMode, int device,
                             PriorityMode priorityMode, DType dtype, KernelTimingMode kernelTiming,
                             int timingSamples, Map<String, String> params, Integer maxConnections) {
    public static final int DEFAULT_ITERATIONS = 100;
    public static final int DEFAULT_WARMUP = 10;
    public static final int DEFAULT_TIMING_SAMPLES = 10;

    public HarnessOptions {
        params = Map.copyOf(params);
        if (streams < 1) {
            throw new IllegalArgumentException("--streams must be at least 1, got " + streams);
        }
        if (iterations < 1) {
            throw new IllegalArgumentException("--iterations must be at least 1, got " + iterations);
        }
        if (warmup < 0) {
            throw new IllegalArgumentException("--warmup must be 0 or more, got " + warmup);
        }
        if (timingSamples < 1) {
            throw new IllegalArgumentException("--timing-samples must be at least 1, got " + timingSamples);
        }
    }

    public static HarnessOptions defaults(int streams) {
        return new HarnessOptions(streams, DEFAULT_ITERATIONS, DEFAULT_WARMUP, SyncMode.PER_ITERATION, 0,
                PriorityMode.NONE, DType.FP32, KernelTimingMode.AUTO, DEFAULT_TIMING_SAMPLES, Map.of(), null);
    }

    public HarnessOptions withStreams(int n) {
        return new HarnessOptions(n, iterations, warmup, syncMode, device, priorityMode, dtype, kernelTiming, timingSamples,
                params, maxConnections);
    }

    public HarnessOptions withSyncMode(SyncMode mode) {
        return new HarnessOptions(streams, iterations, warmup, mode, device, priorityMode, dtype, kernelTiming, timingSamples,
                params, maxConnections);
    }

    public HarnessOptions withIterations(int n, int warm) {
        return new HarnessOptions(streams, n, warm, syncMode, device, priorityMode, dtype, kernelTiming, timingSamples,
                params, maxConnections);
    }

    public HarnessOptions withParams(Map<String, String> p) {
        return new HarnessOptions(streams, iterations, warmup, syncMode, device, priorityMode, dtype, kernelTiming, timingSamples,
                p, maxConnections);
    }

    public HarnessOptions withPriorityMode(PriorityMode mode) {
        return new HarnessOptions(streams, iterations, warmup, syncMode, device, mode, dtype, kernelTiming, timingSamples,
                params, maxConnections);
    }

    public HarnessOptions withKernelTiming(KernelTimingMode mode) {
        return new HarnessOptions(streams, iterations, warmup, syncMode, device, priorityMode, dtype, mode,
                timingSamples, params, maxConnections);
    }

    public HarnessOptions withDtype(DType d) {
        return new HarnessOptions(streams, iterations, warmup, syncMode, device, priorityMode, d, kernelTiming, timingSamples,
                params, maxConnections);
    }
}
