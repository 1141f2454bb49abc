package example.javacpp;

import dev.aorta.api.Aorta;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUgraphExec_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.cudart.dim3;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nccl;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;

/**
 * A JavaCPP-shaped "application" for the plugin's end-to-end test. The natives have no library, so each
 * call ends in UnsatisfiedLinkError, which the application counts: what matters is that the agent's
 * wrapper ran first and recorded the call (with result -1, "threw").
 */
public final class JavaCppApp {
    static final long STREAM = 0x5000L, EVENT = 0xE000L, COMM = 0xC000L;

    public static void main(String[] args) {
        CUstream_st stream = new CUstream_st(STREAM);
        int unsatisfied = 0;
        Runnable[] calls = {
            () -> cudart.cudaStreamCreateWithPriority(stream, 1, -2),
            () -> cudart.cudaLaunchKernel(new Pointer() { }, new dim3(), new dim3(), new PointerPointer(), 128, stream),
            () -> cudart.cudaMemcpyAsync(new CUstream_st(0xD000L), new CUstream_st(0xA000L), 4096, 1, stream),
            () -> cudart.cudaMemsetAsync(new CUstream_st(0xD000L), 0, 1024, stream),
            () -> cudart.cudaEventRecord(new CUevent_st(EVENT), stream),
            () -> cudart.cudaStreamWaitEvent(new CUstream_st(0x6000L), new CUevent_st(EVENT), 0),
            () -> cudart.cudaGraphLaunch(new CUgraphExec_st(0x7000L), stream),
            () -> nccl.ncclAllReduce(new CUstream_st(0xD000L), new CUstream_st(0xD100L), 1000, 7, 0, new ncclComm(COMM), stream),
            () -> nccl.ncclAllGather(new CUstream_st(0xD000L), new CUstream_st(0xD100L), 500, 7, new ncclComm(COMM), stream),
            () -> cudart.cudaStreamSynchronize(stream),
            () -> cudart.cudaDeviceSynchronize(),
        };
        Aorta.step(0);
        for (Runnable call : calls) {
            try {
                call.run();
            } catch (UnsatisfiedLinkError expected) {
                unsatisfied++;
            }
        }
        Aorta.finish();
        System.out.println("RESULT unsatisfied=" + unsatisfied);
        // the agent's plugins folder must not show up on the application's class path
        System.out.println("CLASS_PATH " + System.getProperty("java.class.path"));
    }
}
