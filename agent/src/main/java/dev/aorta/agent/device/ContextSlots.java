package dev.aorta.agent.device;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * One context's event pairs, made when the context's first launch is sampled: {@link #SLOTS} pairs of timed events,
 * each slot with the JCuda handles its launch-path calls take, its gate word and room for one sample. A slot moves
 * FREE -> CLAIMED (a launching thread's) -> ARMED (its gate sequence and time written, published for the watchdog
 * before the stream waits) -> RECORDING -> PENDING (event B recorded, sample written) -> FREE (the drain has read
 * it); every move is one atomic compare-and-set or volatile store, so that the
 * launching thread and the drain thread never wait for each other and nothing is allocated per sample. A slot the
 * drain's watchdog took from a thread that never came back is ABANDONED: its gate is open, and it is free again only
 * if that thread does come back.
 *
 * <p>The gate: {@link #SLOTS} 32-bit words of pinned host memory mapped into the device's address space. Before
 * event A the sampled stream waits for its slot's word to reach the slot's next sequence number; the launching
 * thread writes that number right after event B, so that A, the kernel and B run back to back however long the host
 * took to submit them. {@code gate} is null where the device cannot wait on memory (no gate, A may run early).
 */
final class ContextSlots {
    static final int SLOTS = 256;
    /** What a destroyed context's index holds from then on: no context, every slot free (see the sampler's forget). */
    static final ContextSlots RETIRED = new ContextSlots(0, -1, null, 0, 0, 0);
    static final int FREE = 0;
    static final int CLAIMED = 1;
    static final int ARMED = 2;
    static final int RECORDING = 3;
    static final int PENDING = 4;
    static final int ABANDONED = 5;
    private static final VarHandle WORD = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    final long context;
    final int device;
    final long[] eventA = new long[SLOTS];
    final long[] eventB = new long[SLOTS];
    final Object[] eventAHandle = new Object[SLOTS];
    final Object[] eventBHandle = new Object[SLOTS];
    final Object[] streamHandle = new Object[SLOTS];
    final Object[] gateWordHandle = new Object[SLOTS];
    final int[][] captureStatus = new int[SLOTS][1];
    final AtomicIntegerArray state = new AtomicIntegerArray(SLOTS);
    /** The gate value each slot's stream waits for: written by the slot's owner only. */
    final int[] sequence = new int[SLOTS];
    /** When each slot was armed (System.nanoTime), for the watchdog. */
    final long[] armedAt = new long[SLOTS];
    // the sample, written by the launching thread before its release store of PENDING
    final long[] stream = new long[SLOTS];
    final long[] function = new long[SLOTS];
    final long[] correlation = new long[SLOTS];
    final int[] gridX = new int[SLOTS];
    final int[] blockX = new int[SLOTS];
    /** Null: no gate on this device. */
    final ByteBuffer gate;
    final long gateDeviceAddress;
    // the reference: an event on the agent's own idle stream, and the host time at which it completed
    final long referenceEvent;
    final long referenceStream;
    /** Written at creation and then by the drain thread only. */
    long referenceHostNs;
    private final AtomicInteger nextClaim = new AtomicInteger();

    ContextSlots(long context, int device, ByteBuffer gate, long gateDeviceAddress, long referenceEvent,
                 long referenceStream) {
        this.context = context;
        this.device = device;
        this.gate = gate;
        this.gateDeviceAddress = gateDeviceAddress;
        this.referenceEvent = referenceEvent;
        this.referenceStream = referenceStream;
    }

    /** A FREE slot, now CLAIMED and the caller's, or -1 when every slot is in use. */
    int claim() {
        int start = nextClaim.getAndIncrement();
        for (int i = 0; i < SLOTS; i++) {
            int slot = (start + i) & (SLOTS - 1);
            if (state.get(slot) == FREE && state.compareAndSet(slot, FREE, CLAIMED)) {
                return slot;
            }
        }
        return -1;
    }

    /**
     * CLAIMED -> ARMED: the next value the slot's stream will wait for (cyclic: it may wrap), published with the
     * arming time by the volatile store of ARMED, so that the watchdog opens the gate with the value waited for.
     */
    int arm(int slot, long now) {
        int value = ++sequence[slot];
        armedAt[slot] = now;
        state.set(slot, ARMED);
        return value;
    }

    /** Lets the slot's stream pass its gate; harmless when it already has, or when there is no gate. */
    void openGate(int slot) {
        if (gate != null) {
            WORD.setVolatile(gate, 4 * slot, sequence[slot]);
        }
    }

    /** The gate word's value as the device would read it (tests, and the watchdog's log). */
    int gateWord(int slot) {
        return gate == null ? 0 : (int) WORD.getVolatile(gate, 4 * slot);
    }

    long gateWordDeviceAddress(int slot) {
        return gateDeviceAddress + 4L * slot;
    }
}
