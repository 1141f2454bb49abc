package example.apps;

import dev.aorta.api.Aorta;
import jcuda.Handles;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.jcublas.JCublas2;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaStream_t;

import java.nio.file.Files;
import java.nio.file.Path;

import static jcuda.driver.JCudaDriver.*;

/**
 * A JCuda "application" run in a child JVM by the end-to-end tests: every call family the agent
 * intercepts, three iterations marked with {@code Aorta.step}, and a worker thread issuing many launches.
 * Prints the handle addresses it used (so tests can check attribution) and a RESULT line.
 *
 * <p>Arguments: {@code [workerLaunches] [waitForFile]}: when a file is named, the application first waits
 * until it exists (so that a test can attach the agent late). {@code forever} as the only argument keeps
 * iterating until the process is killed (crash tests).
 */
public final class JCudaApp {
    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("forever")) {
            iterateForever();
        }
        int workerLaunches = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        if (args.length > 1) {
            warmUp();
            System.out.println("READY");
            System.out.flush();
            Path go = Path.of(args[1]);
            while (!Files.exists(go)) {
                Thread.sleep(20);
            }
        }
        CUstream s1 = new CUstream();
        cuStreamCreate(s1, 0);
        CUstream s2 = new CUstream();
        cuStreamCreateWithPriority(s2, 1, -2);
        cudaStream_t rs = new cudaStream_t();
        JCuda.cudaStreamCreateWithPriority(rs, 1, 0);
        CUfunction scale = new CUfunction();
        cuModuleGetFunction(scale, new CUmodule(), "scale");
        CUdeviceptr d = new CUdeviceptr();
        cuMemAlloc(d, 4096);
        CUevent e = new CUevent();
        cuEventCreate(e, 0);
        cublasHandle blas = new cublasHandle();
        JCublas2.cublasCreate(blas);
        JCublas2.cublasSetStream(blas, rs);
        System.out.println("STREAM s1 " + Handles.address(s1));
        System.out.println("STREAM s2 " + Handles.address(s2));
        System.out.println("STREAM rs " + Handles.address(rs));
        System.out.println("EVENT e " + Handles.address(e));

        int codes = 0;
        float[] host = new float[1024];
        for (int step = 0; step < 3; step++) {
            Aorta.step(step);
            codes += cuMemcpyHtoDAsync(d, Pointer.to(host), 4096, s1);
            codes += cuLaunchKernel(scale, 100, 1, 1, 128, 1, 1, 256, s1, Pointer.to(d), null);
            codes += cuEventRecord(e, s1);
            codes += cuStreamWaitEvent(s2, e, 0);
            codes += cuMemsetD32Async(d, 0, 1024, s2);
            codes += cuLaunchCooperativeKernel(scale, 50, 1, 1, 64, 1, 1, 0, s2, Pointer.to(d));
            codes += cuGraphLaunch(new CUgraphExec(), s2);
            codes += JCublas2.cublasSgemm(blas, 0, 0, 100, 100, 100, Pointer.to(host), Pointer.to(d), 100,
                    Pointer.to(d), 100, Pointer.to(host), Pointer.to(d), 100);
            codes += JCuda.cudaMemcpyAsync(Pointer.to(d), Pointer.to(host), 4096, 1, rs);
            codes += cuStreamSynchronize(s1);
            codes += cuEventSynchronize(e);
            codes += cuEventQuery(e);
            codes += cuCtxSynchronize();
            for (int i = 0; i < host.length; i++) {
                host[i] = host[i] * 0.5f + i + step;
            }
        }
        Aorta.finish();

        Thread worker = new Thread(() -> {
            for (int i = 0; i < workerLaunches; i++) {
                cuLaunchKernel(scale, 1, 1, 1, 32, 1, 1, 0, s2, null, null);
            }
        }, "launch-worker");
        worker.start();
        worker.join();
        codes += cuMemcpyDtoH(Pointer.to(host), d, 4096);
        codes += cuMemFree(d);
        codes += cuStreamDestroy(s1);
        double sum = 0;
        for (float v : host) {
            sum += v;
        }
        System.out.println("RESULT codes=" + codes + " sum=" + sum);
        // a real application runs on after its iterations; this one lingers a moment so that the agent's
        // drain thread (cold in a fresh JVM) commits its JFR events before the JVM's JFR shutdown hook writes
        // the recording (hooks run concurrently; see the agent README)
        Thread.sleep(300);
    }

    private static void iterateForever() {
        CUstream s = new CUstream();
        cuStreamCreate(s, 0);
        CUfunction f = new CUfunction();
        cuModuleGetFunction(f, new CUmodule(), "spin");
        System.out.println("RUNNING");
        System.out.flush();
        for (long step = 0; ; step++) {
            Aorta.step(step);
            for (int i = 0; i < 100; i++) {
                cuLaunchKernel(f, 10, 1, 1, 32, 1, 1, 0, s, null, null);
            }
            cuStreamSynchronize(s);
        }
    }

    /** Loads and runs the driver class before the agent is attached, so that attaching must retransform it. */
    private static void warmUp() {
        CUstream s = new CUstream();
        cuStreamCreate(s, 0);
        cuStreamSynchronize(s);
    }
}
