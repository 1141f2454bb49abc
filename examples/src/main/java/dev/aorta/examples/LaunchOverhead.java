package dev.aorta.examples;

import dev.aorta.gpu.cupti.CuptiTracer;
import dev.aorta.core.metric.Percentiles;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;

import static jcuda.driver.JCudaDriver.*;

/**
 * The agent's overhead probe on a GPU: one host thread launches a tiny kernel with parameters
 * ({@code increment(float* x, int n)}) round-robin over S streams, in timed rounds, and prints the host
 * time per launch (mean, best and median over the rounds). scripts/agent-ab.sh runs it alternately with and
 * without the agent. Only the issuing is timed, not the wait for the device; keep a round below the driver's
 * queue depth (about a thousand launches) so that the host never waits for a full queue either, and the
 * figure is the host's cost, not the GPU's pace (which follows its clocks).
 *
 * <p>Usage: {@code LaunchOverhead <streams> [launchesPerRound=20000] [rounds=10] [params=prebuilt|per-launch]
 * [cupti]}. {@code prebuilt} reuses one parameter block per stream (the launch cost proper); {@code per-launch}
 * builds {@code Pointer.to(...)} each time, as naive JCuda code does. {@code cupti} has the program trace
 * itself with CUPTI as the agent does (kernel and driver API records), without any agent: CUPTI's own
 * share of the agent-with-CUPTI cost.
 */
public final class LaunchOverhead {
    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: LaunchOverhead <streams> [launchesPerRound] [rounds] [prebuilt|per-launch]");
            System.exit(2);
        }
        int streamCount = Integer.parseInt(args[0]);
        int launches = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        boolean perLaunch = args.length > 3 && args[3].equals("per-launch");
        boolean cupti = args.length > 4 && args[4].equals("cupti");
        if (streamCount < 1 || launches < 1 || rounds < 1 || (args.length > 3 && !perLaunch && !args[3].equals("prebuilt"))
                || (args.length > 4 && !cupti)) {
            System.err.println("LaunchOverhead: streams, launches and rounds must be >= 1, params prebuilt or per-launch,"
                    + " and the fifth argument, if any, cupti");
            System.exit(2);
        }
        ExampleKernels.useDevice0();
        CUfunction increment = new ExampleKernels().function("increment");
        java.util.concurrent.atomic.AtomicLong traced = new java.util.concurrent.atomic.AtomicLong();
        CuptiTracer tracer = cupti ? CuptiTracer.start(a -> traced.incrementAndGet(), c -> { }, 0, true) : null;

        int n = 256;
        CUstream[] streams = new CUstream[streamCount];
        CUdeviceptr[] buffers = new CUdeviceptr[streamCount];
        Pointer[] params = new Pointer[streamCount];
        for (int s = 0; s < streamCount; s++) {
            streams[s] = new CUstream();
            cuStreamCreate(streams[s], CUstream_flags.CU_STREAM_NON_BLOCKING);
            buffers[s] = new CUdeviceptr();
            cuMemAlloc(buffers[s], n * Sizeof.FLOAT);
            cuMemsetD32(buffers[s], 0, n);
            params[s] = Pointer.to(Pointer.to(buffers[s]), Pointer.to(new int[] {n}));
        }
        double best = Double.MAX_VALUE;
        double sum = 0;
        double[] perRound = new double[rounds];
        for (int round = -2; round < rounds; round++) {   // two warm-up rounds
            long start = System.nanoTime();
            for (int i = 0; i < launches; i++) {
                int s = i % streamCount;
                Pointer p = perLaunch ? Pointer.to(Pointer.to(buffers[s]), Pointer.to(new int[] {n})) : params[s];
                cuLaunchKernel(increment, 1, 1, 1, n, 1, 1, 0, streams[s], p, null);
            }
            long issued = System.nanoTime();
            cuCtxSynchronize();
            double nsPerLaunch = (double) (issued - start) / launches;
            if (round >= 0) {
                best = Math.min(best, nsPerLaunch);
                sum += nsPerLaunch;
                perRound[round] = nsPerLaunch;
            }
        }
        if (tracer != null) {
            tracer.stop();
            System.out.println("cupti records " + traced.get());
        }
        float[] check = new float[n];
        cuMemcpyDtoH(Pointer.to(check), buffers[0], n * Sizeof.FLOAT);
        long perStream = (long) (rounds + 2) * launches / streamCount;
        boolean ok = check[0] == (float) perStream || streamCount > 1;
        double median = Percentiles.of(perRound, 50);
        System.out.printf("streams=%d launches=%d rounds=%d params=%s mean_ns_per_launch=%.1f best_ns_per_launch=%.1f "
                        + "median_ns_per_launch=%.1f check=%s%n", streamCount, launches, rounds,
                perLaunch ? "per-launch" : "prebuilt", sum / rounds, best, median, ok ? "ok" : "WRONG");
        for (CUstream s : streams) {
            cuStreamDestroy(s);
        }
        System.exit(ok ? 0 : 1);
    }
}
