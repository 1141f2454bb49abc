package dev.aorta.gpu.cupti;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** CUPTI's activity buffers are one pool for the process: 50 capture windows reuse the first window's buffers. */
class ActivityBuffersTest {

    @Test
    void fiftySubscriptionsHoldingThreeBuffersEachAllocateThreeBuffersInAll() {
        ActivityBuffers buffers = new ActivityBuffers(4096);
        for (int window = 0; window < 50; window++) {
            List<MemorySegment> heldByCupti = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                heldByCupti.add(buffers.take());
            }
            // CUPTI gives them back as bare addresses (the upcall's segments have size 0)
            heldByCupti.forEach(b -> buffers.giveBack(MemorySegment.ofAddress(b.address())));
        }
        assertThat(buffers.allocated()).isEqualTo(3);
    }

    @Test
    void aBufferGivenBackIsHandedOutWholeAgain() {
        ActivityBuffers buffers = new ActivityBuffers(4096);
        MemorySegment first = buffers.take();
        buffers.giveBack(MemorySegment.ofAddress(first.address()));
        MemorySegment again = buffers.take();
        assertThat(again.address()).isEqualTo(first.address());
        assertThat(again.byteSize()).isEqualTo(4096);
    }

    @Test
    void aNullBufferIsNotPooled() {
        ActivityBuffers buffers = new ActivityBuffers(4096);
        buffers.giveBack(MemorySegment.NULL);
        buffers.take();
        assertThat(buffers.allocated()).isEqualTo(1);
    }
}
