package example.javacpp;

import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.javacpp.Pointer;

/**
 * JavaCPP's NCCL and cudart shapes (same parameter lists as {@code nccl.ncclAllReduce} and
 * {@code cudart.cudaStreamSynchronize}) with Java bodies instead of natives, for weaving the plugin's advice
 * in a test: the all-reduce really sums host buffers (addressed by index), as a world of two identical ranks
 * would, and every call logs the stream it ran on ({@link ShapedGpu}).
 */
public final class ShapedNccl {
    private ShapedNccl() {
    }

    public static int ncclAllReduce(Pointer sendbuff, Pointer recvbuff, long count, int datatype, int op,
                                    ncclComm comm, CUstream_st stream) {
        float[] in = ShapedGpu.buffers[(int) sendbuff.address()];
        float[] out = ShapedGpu.buffers[(int) recvbuff.address()];
        for (int i = 0; i < count; i++) {
            out[i] = in[i] + in[i];
        }
        ShapedGpu.LOG.add("allReduce on " + Long.toHexString(stream.address()));
        return 0;
    }

    public static int cudaStreamSynchronize(CUstream_st stream) {
        ShapedGpu.LOG.add("sync " + Long.toHexString(stream.address()));
        return 0;
    }
}
