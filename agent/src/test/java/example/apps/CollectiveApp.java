package example.apps;

import dev.aorta.api.Aorta;
import dev.aorta.gpu.blas.Cublas;
import dev.aorta.gpu.cuda.KernelLaunch;
import dev.aorta.gpu.nccl.NcclComm;
import example.fakegpu.FakeGpu;
import jcuda.Handles;
import jcuda.driver.CUstream;

import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

/**
 * The overlap scenario of issue 4 on the fake device: per iteration a GEMM, an all-reduce issued on the
 * same compute stream, then more GEMMs that do not read the all-reduce's result, then a stream
 * synchronize. Uses the aorta-gpu bindings (KernelLaunch, Cublas, NcclComm) for the work and JCuda for the
 * stream. Argument: {@code api} (Aorta.stepBegin/End markers) or {@code method} (no markers: the test
 * names {@link #trainStep} as the iteration method). Prints the device log and a RESULT line.
 */
public final class CollectiveApp {
    public static void main(String[] args) {
        boolean apiMarkers = args.length == 0 || args[0].equals("api");
        CUstream compute = new CUstream();
        cuStreamCreate(compute, 1);
        long stream = Handles.address(compute);
        System.out.println("STREAM compute " + stream);
        float[] gradients = new float[1000];
        float[] reduced = new float[1000];
        NcclComm comm = new NcclComm(gradients, reduced);
        Cublas cublas = new Cublas();
        double checksum = 0;
        for (int step = 0; step < 4; step++) {
            for (int i = 0; i < gradients.length; i++) {
                gradients[i] = i * 0.25f + step;
            }
            if (apiMarkers) {
                Aorta.stepBegin();
            }
            trainStep(compute, stream, comm, cublas);
            if (apiMarkers) {
                Aorta.stepEnd();
            }
            for (float v : reduced) {
                checksum += v;
            }
        }
        for (String line : FakeGpu.log()) {
            System.out.println("LOG " + line);
        }
        System.out.println("RESULT checksum=" + checksum);
    }

    /** One iteration: 2 ms GEMM, 3 ms all-reduce, 2 ms + 1 ms independent GEMMs, synchronize. */
    static void trainStep(CUstream compute, long stream, NcclComm comm, Cublas cublas) {
        new KernelLaunch("gemm_forward", 1, 2000, 256, 0, stream).launch();
        comm.allReduce(0, 1, 3_000_000, 7, 0, stream);
        new KernelLaunch("gemm_next_layer", 2, 2000, 256, 0, stream).launch();
        cublas.sgemm(1000, 1000, 1000, 0, 0, 0, stream);
        cuStreamSynchronize(compute);
    }
}
