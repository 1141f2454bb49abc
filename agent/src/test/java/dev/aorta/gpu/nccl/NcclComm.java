package dev.aorta.gpu.nccl;

import example.fakegpu.FakeGpu;

/**
 * Test double of the aorta-gpu NCCL communicator: {@code allReduce} "runs" count nanoseconds on the
 * stream it is given, and really sums the host arrays registered as send/recv buffers (so results can be
 * compared with and without the agent).
 */
public final class NcclComm {
    private final float[][] buffers;

    public NcclComm(float[]... buffers) {
        this.buffers = buffers;
    }

    /** Buffers are addressed by index; "sum" adds rank-many copies (world size 2 simulated). */
    public void allReduce(long send, long recv, long count, int dtype, int op, long stream) {
        float[] in = buffers[(int) send];
        float[] out = buffers[(int) recv];
        for (int i = 0; i < count && i < in.length; i++) {
            out[i] = in[i] * 2;
        }
        FakeGpu.run("KERNEL", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", stream, count, count * 4, 1, 1);
    }
}
