package dev.aorta.examples;

import dev.aorta.api.Aorta;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamCaptureMode;
import jcuda.driver.CUstream_flags;

import static jcuda.driver.JCudaDriver.*;

/**
 * The agent's GPU example (plain JCuda driver API): four streams (two with priorities), asynchronous
 * copies, memsets and kernels, an event recorded on one stream and waited for on another, and a CUDA
 * graph captured from a stream and replayed; each iteration marked with {@code Aorta.step}. Checks its
 * own result on the host and prints {@code RESULT ok} (or exits 1).
 *
 * <p>Usage: {@code java -cp ... dev.aorta.examples.GpuStreamsExample [iterations] [waitSeconds]};
 * {@code waitSeconds} > 0 sleeps first, printing the pid, so that {@code aorta attach} can be tried.
 */
public final class GpuStreamsExample {
    static final int N = 1 << 20;

    public static void main(String[] args) throws Exception {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int waitSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        ExampleKernels.useDevice0();
        if (waitSeconds > 0) {
            System.out.println("pid " + ProcessHandle.current().pid() + ": waiting " + waitSeconds + " s for 'aorta attach'");
            Thread.sleep(waitSeconds * 1000L);
        }

        ExampleKernels kernels = new ExampleKernels();
        CUfunction scale = kernels.function("scale");
        CUfunction add = kernels.function("add");
        CUstream[] streams = new CUstream[4];
        for (int i = 0; i < streams.length; i++) {
            streams[i] = new CUstream();
            if (i < 2) {
                cuStreamCreateWithPriority(streams[i], CUstream_flags.CU_STREAM_NON_BLOCKING, -i);
            } else {
                cuStreamCreate(streams[i], CUstream_flags.CU_STREAM_NON_BLOCKING);
            }
        }
        CUdeviceptr a = alloc(), b = alloc(), c = alloc();
        float[] hostA = new float[N];
        float[] hostOut = new float[N];
        for (int i = 0; i < N; i++) {
            hostA[i] = i % 100;
        }
        CUevent aReady = new CUevent();
        cuEventCreate(aReady, 0);

        // a graph: c = c * 2 captured on stream 3, replayed every iteration
        CUgraph graph = new CUgraph();
        CUgraphExec graphExec = new CUgraphExec();
        // thread-local capture: other threads (the agent's drain thread, CUPTI's) may use the driver meanwhile
        cuStreamBeginCapture(streams[3], CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
        launch(scale, streams[3], c, 2.0f);
        cuStreamEndCapture(streams[3], graph);
        cuGraphInstantiate(graphExec, graph, 0);

        int blocks = (N + 255) / 256;
        for (int it = 0; it < iterations; it++) {
            Aorta.step(it);
            cuMemcpyHtoDAsync(a, Pointer.to(hostA), (long) N * Sizeof.FLOAT, streams[0]);
            launch(scale, streams[0], a, 3.0f);                      // a = 3 * hostA
            cuEventRecord(aReady, streams[0]);
            cuMemsetD32Async(b, Float.floatToIntBits(1.0f), N, streams[1]);   // b = 1
            cuStreamWaitEvent(streams[1], aReady, 0);
            cuLaunchKernel(add, blocks, 1, 1, 256, 1, 1, 0, streams[1],
                    Pointer.to(Pointer.to(b), Pointer.to(a), Pointer.to(new int[] {N})), null);   // b = 1 + 3 * hostA
            cuMemsetD32Async(c, Float.floatToIntBits(0.5f), N, streams[3]);
            cuGraphLaunch(graphExec, streams[3]);                    // c = 1
            cuStreamSynchronize(streams[3]);
            cuLaunchKernel(add, blocks, 1, 1, 256, 1, 1, 0, streams[1],
                    Pointer.to(Pointer.to(b), Pointer.to(c), Pointer.to(new int[] {N})), null);   // b = 2 + 3 * hostA
            cuMemcpyDtoHAsync(Pointer.to(hostOut), b, (long) N * Sizeof.FLOAT, streams[1]);
            cuStreamSynchronize(streams[1]);
            cuCtxSynchronize();
        }
        Aorta.finish();

        double checksum = 0;
        for (int i = 0; i < N; i++) {
            float expected = 2 + 3 * hostA[i];
            if (hostOut[i] != expected) {
                System.out.println("RESULT wrong at " + i + ": " + hostOut[i] + " != " + expected);
                System.exit(1);
            }
            checksum += hostOut[i];
        }
        cuGraphExecDestroy(graphExec);
        cuGraphDestroy(graph);
        for (CUdeviceptr p : new CUdeviceptr[] {a, b, c}) {
            cuMemFree(p);
        }
        for (CUstream s : streams) {
            cuStreamDestroy(s);
        }
        System.out.println("RESULT ok checksum=" + checksum + " iterations=" + iterations);
    }

    private static CUdeviceptr alloc() {
        CUdeviceptr p = new CUdeviceptr();
        cuMemAlloc(p, (long) N * Sizeof.FLOAT);
        return p;
    }

    private static void launch(CUfunction scale, CUstream stream, CUdeviceptr x, float factor) {
        cuLaunchKernel(scale, (N + 255) / 256, 1, 1, 256, 1, 1, 0, stream,
                Pointer.to(Pointer.to(x), Pointer.to(new float[] {factor}), Pointer.to(new int[] {N})), null);
    }
}
