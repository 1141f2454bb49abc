package dev.aorta.examples;

import dev.aorta.core.metric.Percentiles;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;

import static jcuda.driver.JCudaDriver.*;

/**
 * The agent's cost per launch on the real launch path, paired inside one process: rounds alternate between
 * {@code JCudaDriver.cuLaunchKernel} (which the agent weaves) and the private native method it wraps,
 * {@code cuLaunchKernelNative} (which nobody weaves), in the order A B B A, so that both arms see the same
 * machine state, which on a shared VM drifts by tens of percent between processes. The difference is what
 * the advice costs per call: clock reads, the ring write, and its effect on the JIT's code. It leaves out
 * what the agent costs beside the call (its drain thread), which only alternating processes show
 * (scripts/agent-ab.sh). Without the agent both arms run the same code: the control.
 *
 * <p>Usage: {@code AdviceCost [streams=1] [launchesPerRound=500] [pairs=400]}; a round stays below the driver's
 * queue depth so that the host never waits for the GPU. Prints one {@code advice_cost} line: both arms' median
 * ns per launch, the median of the pairs' differences with its distribution-free 95% interval, their mean with
 * its t interval, and the median difference in % of the bare launch.
 */
public final class AdviceCost {
    private static final MethodType LAUNCH = MethodType.methodType(int.class, CUfunction.class, int.class, int.class,
            int.class, int.class, int.class, int.class, int.class, CUstream.class, Pointer.class, Pointer.class);
    /** Both paths through a constant method handle, so the JIT compiles the two call sites alike. */
    private static final MethodHandle WOVEN;
    private static final MethodHandle BARE;

    static {
        try {
            WOVEN = MethodHandles.lookup().findStatic(JCudaDriver.class, "cuLaunchKernel", LAUNCH);
            BARE = MethodHandles.privateLookupIn(JCudaDriver.class, MethodHandles.lookup())
                    .findStatic(JCudaDriver.class, "cuLaunchKernelNative", LAUNCH);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public static void main(String[] args) throws Throwable {
        int streamCount = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        int launches = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        int pairs = args.length > 2 ? Integer.parseInt(args[2]) : 400;
        if (streamCount < 1 || launches < 1 || pairs < 2) {
            System.err.println("usage: AdviceCost [streams >= 1] [launchesPerRound >= 1] [pairs >= 2]");
            System.exit(2);
        }
        ExampleKernels.useDevice0();
        CUfunction increment = new ExampleKernels().function("increment");
        int n = 256;
        CUstream[] streams = new CUstream[streamCount];
        Pointer[] params = new Pointer[streamCount];
        for (int s = 0; s < streamCount; s++) {
            streams[s] = new CUstream();
            cuStreamCreate(streams[s], CUstream_flags.CU_STREAM_NON_BLOCKING);
            CUdeviceptr buffer = new CUdeviceptr();
            cuMemAlloc(buffer, n * Sizeof.FLOAT);
            cuMemsetD32(buffer, 0, n);
            params[s] = Pointer.to(Pointer.to(buffer), Pointer.to(new int[] {n}));
        }
        double[] woven = new double[pairs];
        double[] bareNs = new double[pairs];
        for (int p = -20; p < pairs; p++) {  // 20 warm-up pairs: both paths compiled before anything counts
            boolean wovenFirst = (p & 1) == 0;
            double first = round(wovenFirst, increment, streams, params, launches, n);
            double second = round(!wovenFirst, increment, streams, params, launches, n);
            if (p >= 0) {
                woven[p] = wovenFirst ? first : second;
                bareNs[p] = wovenFirst ? second : first;
            }
        }
        double[] delta = new double[pairs];
        for (int p = 0; p < pairs; p++) {
            delta[p] = woven[p] - bareNs[p];
        }
        double mean = Arrays.stream(delta).average().orElse(0);
        double sd = Math.sqrt(Arrays.stream(delta).map(d -> (d - mean) * (d - mean)).sum() / (pairs - 1));
        double half = 1.96 * sd / Math.sqrt(pairs);
        // the median's distribution-free 95% interval: order statistics n/2 -+ 1.96 sqrt(n)/2 (a round hit by a GC
        // pause or a page fault moves the mean, not the median)
        double[] sorted = delta.clone();
        Arrays.sort(sorted);
        int k = Math.max(1, (int) Math.floor(pairs / 2.0 - 0.98 * Math.sqrt(pairs)));
        double medianDelta = Percentiles.ofSorted(sorted, 50);
        double bareMedian = Percentiles.of(bareNs, 50);
        System.out.printf("advice_cost streams=%d launches=%d pairs=%d woven_median_ns=%.1f bare_median_ns=%.1f "
                        + "delta_median_ns=%.1f median_ci95_ns=[%.1f,%.1f] delta_mean_ns=%.1f mean_ci95_ns=[%.1f,%.1f] "
                        + "delta_pct=%.2f%n", streamCount, launches, pairs, Percentiles.of(woven, 50), bareMedian,
                medianDelta, sorted[k - 1], sorted[pairs - k], mean, mean - half, mean + half, 100 * medianDelta / bareMedian);
        for (CUstream s : streams) {
            cuStreamDestroy(s);
        }
    }

    /** One timed round of launches through either path, then a wait for the device (not timed). */
    private static double round(boolean woven, CUfunction f, CUstream[] streams, Pointer[] params,
                                int launches, int n) throws Throwable {
        long start = System.nanoTime();
        for (int i = 0; i < launches; i++) {
            int s = i % streams.length;
            int rc = woven ? (int) WOVEN.invokeExact(f, 1, 1, 1, n, 1, 1, 0, streams[s], params[s], (Pointer) null)
                    : (int) BARE.invokeExact(f, 1, 1, 1, n, 1, 1, 0, streams[s], params[s], (Pointer) null);
            if (rc != 0) {
                throw new IllegalStateException("cuLaunchKernel returned " + rc);
            }
        }
        double ns = (double) (System.nanoTime() - start) / launches;
        cuCtxSynchronize();
        return ns;
    }
}
