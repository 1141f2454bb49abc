package example.apps;

import dev.aorta.api.Aorta;
import dev.aorta.gpu.blas.Cublas;
import dev.aorta.gpu.cuda.KernelLaunch;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.gpu.nccl.NcclComm;
import dev.aorta.gpu.nccl.NcclDataType;
import dev.aorta.gpu.nccl.NcclRedOp;
import example.fakegpu.FakeGpu;

/**
 * The overlap scenario of issue 4 on the fake device, written against the aorta-gpu binding's shapes
 * (Stream, KernelLaunch, Cublas, NcclComm): per iteration a GEMM, an all-reduce issued on the same compute
 * stream, then more GEMMs that do not read the all-reduce's result, then a stream synchronize. Argument:
 * {@code api} (Aorta.stepBegin/End markers) or {@code method} (no markers: the test names
 * {@link #trainStep} as the iteration method). Prints the device log and a RESULT line.
 */
public final class CollectiveApp {
    public static void main(String[] args) {
        boolean apiMarkers = args.length == 0 || args[0].equals("api");
        Stream compute = Stream.create(0, true);
        System.out.println("STREAM compute " + compute.address());
        float[] gradients = new float[1000];
        float[] reduced = new float[1000];
        NcclComm comm = new NcclComm(gradients, reduced);
        Cublas cublas = new Cublas(compute);
        // long enough (tens of ms) that host scheduling hiccups on a busy CI machine hardly move the timeline
        KernelLaunch forward = new KernelLaunch("gemm_forward", 1, 20_000, 256, 0, compute);
        KernelLaunch next = new KernelLaunch("gemm_next_layer", 2, 20_000, 256, 0, compute);
        double checksum = 0;
        for (int step = 0; step < 4; step++) {
            for (int i = 0; i < gradients.length; i++) {
                gradients[i] = i * 0.25f + step;
            }
            if (apiMarkers) {
                Aorta.stepBegin();
            }
            trainStep(compute, forward, next, comm, cublas);
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
        System.out.println("REGISTERED " + FakeGpu.registeredStreams().size());
        System.out.println("RESULT checksum=" + checksum);
    }

    /** One iteration: 20 ms GEMM, 30 ms all-reduce, 20 ms + 10 ms independent GEMMs, synchronize. */
    static void trainStep(Stream compute, KernelLaunch forward, KernelLaunch next, NcclComm comm, Cublas cublas) {
        forward.launch();
        comm.allReduce(0, 1, 30_000_000, NcclDataType.FLOAT32, NcclRedOp.SUM, compute);
        next.launch();
        cublas.gemm(null, 2154, 2154, 2154, 0, 0, 0);
        compute.synchronize();
    }
}
