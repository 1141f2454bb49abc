package dev.aorta.examples;

import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static jcuda.driver.JCudaDriver.*;

/**
 * A launch rate that one host thread cannot reach: T threads, each with its own stream and buffer, launch the tiny
 * {@code increment(float* x, int n)} kernel as fast as they can for a number of seconds, and the program prints the
 * launches per second of all of them together. Issue 16's "no record lost at 200 000 launches/s with CUPTI in a
 * window" needs it: with CUPTI on, one JCuda launch costs about 6.3 µs on the H100, so one thread stops near
 * 159 000 a second ({@link LaunchOverhead} is single-threaded by design: it measures one thread's cost per launch).
 *
 * <p>Usage: {@code ThreadedLaunches <threads> <seconds>}. Each buffer ends holding its thread's launch count, which
 * is checked (a dropped or doubled launch would show); exit 1 if one does not.
 */
public final class ThreadedLaunches {
    private static final int N = 256;

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("usage: ThreadedLaunches <threads> <seconds>");
            System.exit(2);
        }
        int threads = Integer.parseInt(args[0]);
        double seconds = Double.parseDouble(args[1]);
        if (threads < 1 || !(seconds > 0)) {
            System.err.println("ThreadedLaunches: threads must be >= 1 and seconds > 0, got " + args[0] + " and "
                    + args[1]);
            System.exit(2);
        }
        ExampleKernels.useDevice0();
        CUfunction increment = new ExampleKernels().function("increment");
        CUcontext context = new CUcontext();
        cuCtxGetCurrent(context);

        long[] launched = new long[threads];
        boolean[] correct = new boolean[threads];
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[2];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int index = t;
            Thread w = new Thread(() -> {
                cuCtxSetCurrent(context);
                CUstream stream = new CUstream();
                cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING);
                CUdeviceptr buffer = new CUdeviceptr();
                cuMemAlloc(buffer, N * Sizeof.FLOAT);
                cuMemsetD32(buffer, 0, N);
                Pointer params = Pointer.to(Pointer.to(buffer), Pointer.to(new int[] {N}));
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                long deadline = window[0] + (long) (seconds * 1e9);
                long count = 0;
                // the clock is read once per 64 launches: a read per launch would be part of what is measured
                do {
                    for (int i = 0; i < 64; i++) {
                        cuLaunchKernel(increment, 1, 1, 1, N, 1, 1, 0, stream, params, null);
                    }
                    count += 64;
                } while (System.nanoTime() < deadline);
                cuStreamSynchronize(stream);
                float[] check = new float[1];
                cuMemcpyDtoH(Pointer.to(check), buffer, Sizeof.FLOAT);
                launched[index] = count;
                // floats count exactly up to 2^24
                correct[index] = count > (1 << 24) || check[0] == (float) count;
                cuMemFree(buffer);
                cuStreamDestroy(stream);
            }, "launcher-" + t);
            workers.add(w);
            w.start();
        }
        ready.await();
        window[0] = System.nanoTime();
        go.countDown();
        for (Thread w : workers) {
            w.join();
        }
        window[1] = System.nanoTime();
        long total = 0;
        boolean ok = true;
        for (int t = 0; t < threads; t++) {
            total += launched[t];
            ok &= correct[t];
        }
        double elapsed = (window[1] - window[0]) / 1e9;
        System.out.printf("threads=%d seconds=%.3f launches=%d launches_per_s=%.0f check=%s%n", threads, elapsed, total,
                total / elapsed, ok ? "ok" : "WRONG");
        System.exit(ok ? 0 : 1);
    }
}
