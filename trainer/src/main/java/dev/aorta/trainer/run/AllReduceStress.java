package dev.aorta.trainer.run;

import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.DeviceBuffer;
import dev.aorta.gpu.cuda.Event;
import dev.aorta.gpu.cuda.PinnedHostBuffer;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.gpu.nccl.NcclComm;
import dev.aorta.gpu.nccl.NcclDataType;
import dev.aorta.gpu.nccl.NcclRedOp;
import dev.aorta.model.Tensor;

import java.util.List;

/**
 * AORTA's injected all-reduce + copy stress ({@code training.inject_allreduce_copies}, {@code
 * allreduce_stress_level}), its reproducer of a hang between collectives and host-blocking copies. After a step's
 * optimizer, {@code level} cycles of: fill a 1 Mi-element fp32 buffer, all-reduce it (average), copy it on the
 * device, copy that on the device with the host waiting, all-reduce the copy (sum), copy it to the host and back
 * with the host waiting for each, all-reduce it (average) and copy it once more on the device; then the step's loss
 * is all-reduced (average) into a buffer of its own, copied to the host and back with the host waiting. Everything
 * runs on the allreduce stream after the step's compute work (NCCL waits for the current stream at enqueue in
 * AORTA's trainer), and the compute stream waits for it before the step's end marker, so its device time is the
 * step's. AORTA fills the buffer with fresh normals each cycle; the pattern does not depend on the values, so here
 * it is a constant.
 */
final class AllReduceStress implements AutoCloseable {
    static final int ELEMENTS = 1 << 20;
    private static final long BYTES = 4L * ELEMENTS;

    private final NcclComm world;
    private final int level;
    private final DeviceBuffer reduced;
    private final DeviceBuffer copy;
    private final DeviceBuffer copied;
    private final DeviceBuffer loss;
    private final PinnedHostBuffer host;
    private final Event computeDone;
    private final Event stressDone;

    AllReduceStress(CudaDevice device, NcclComm world, int level) {
        if (level < 1 || level > 10) {
            throw new IllegalArgumentException("all-reduce stress level " + level + ": expected 1 to 10");
        }
        this.world = world;
        this.level = level;
        this.reduced = device.allocate(BYTES, "allreduce stress");
        this.copy = device.allocate(BYTES, "allreduce stress");
        this.copied = device.allocate(BYTES, "allreduce stress");
        this.loss = device.allocate(4, "allreduce stress");
        this.host = device.allocatePinned(BYTES);
        this.computeDone = device.createEvent(false);
        this.stressDone = device.createEvent(false);
    }

    /** The cycles, after everything issued on {@code compute} so far; compute waits for them. */
    void inject(Tensor stepLoss, Stream compute, Stream collectives) {
        computeDone.record(compute);
        collectives.waitFor(computeDone);
        for (int i = 0; i < level; i++) {
            reduced.fill32Async(Float.floatToRawIntBits(1f), ELEMENTS, collectives);
            world.allReduce(reduced.address(), reduced.address(), ELEMENTS, NcclDataType.FLOAT32, NcclRedOp.AVG,
                    collectives);
            copy.copyFromAsync(reduced, BYTES, collectives);
            copied.copyFromAsync(copy, BYTES, collectives);
            collectives.synchronize(); // a blocking device copy
            world.allReduce(copied.address(), copied.address(), ELEMENTS, NcclDataType.FLOAT32, NcclRedOp.SUM,
                    collectives);
            copied.copyToAsync(host, BYTES, collectives);
            collectives.synchronize(); // device to host, blocking
            copied.copyFromAsync(host, BYTES, collectives);
            collectives.synchronize(); // host to device, blocking
            world.allReduce(copied.address(), copied.address(), ELEMENTS, NcclDataType.FLOAT32, NcclRedOp.AVG,
                    collectives);
            copy.copyFromAsync(copied, BYTES, collectives);
        }
        world.allReduce(stepLoss.address(), loss.address(), 1, NcclDataType.FLOAT32, NcclRedOp.AVG, collectives);
        loss.copyToAsync(host, 4, collectives);
        collectives.synchronize();
        loss.copyFromAsync(host, 4, collectives);
        collectives.synchronize();
        stressDone.record(collectives);
        compute.waitFor(stressDone);
    }

    @Override
    public void close() {
        for (AutoCloseable c : List.of(stressDone, computeDone, host, loss, copied, copy, reduced)) {
            try {
                c.close();
            } catch (Exception e) {
                throw new IllegalStateException("releasing the all-reduce stress buffers failed: " + e.getMessage(),
                        e);
            }
        }
    }
}
