package dev.aorta.gpu.nccl;

import dev.aorta.gpu.cuda.Stream;
import example.fakegpu.FakeGpu;

/**
 * Test double of the aorta-gpu communicator (real field {@code comm}, real collective signatures):
 * {@code allReduce} "runs" count nanoseconds on the stream it is given, and really sums the host arrays
 * registered as buffers (addressed by index), as a world of 2 identical ranks would.
 */
public final class NcclComm {
    private final long comm = 0xC0111L;
    private final float[][] buffers;

    public NcclComm(float[]... buffers) {
        this.buffers = buffers;
    }

    public long address() {
        return comm;
    }

    public void allReduce(long send, long recv, long count, NcclDataType type, NcclRedOp op, Stream stream) {
        float[] in = buffers[(int) send];
        float[] out = buffers[(int) recv];
        for (int i = 0; i < count && i < in.length; i++) {
            out[i] = in[i] * 2;
        }
        FakeGpu.run("KERNEL", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", stream.address(), count, count * 4, 1, 1,
                "cuLaunchKernelEx");
    }

    public void allGather(long send, long recv, long sendCount, NcclDataType type, Stream stream) {
        FakeGpu.run("KERNEL", "ncclDevKernel_AllGather_RING_LL", stream.address(), sendCount, sendCount * 4, 1, 1,
                "cuLaunchKernelEx");
    }

    public void reduceScatter(long send, long recv, long recvCount, NcclDataType type, NcclRedOp op, Stream stream) {
        FakeGpu.run("KERNEL", "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL", stream.address(), recvCount,
                recvCount * 4, 1, 1, "cuLaunchKernelEx");
    }
}
