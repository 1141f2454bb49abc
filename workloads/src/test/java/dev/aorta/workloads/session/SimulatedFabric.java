package dev.aorta.workloads.session;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The wire between {@link SimulatedGpuSession}s of one JVM: ranks (threads, one session each) that open a
 * communicator with the same id meet here, and every collective is computed at enqueue time on the
 * sessions' fp32 data, so that sums, gathers and splits can be checked without a GPU. A collective waits
 * for every member (at most {@link #TIMEOUT_S} s, so a test that forgets a rank fails instead of hanging).
 */
final class SimulatedFabric {
    static final long TIMEOUT_S = 20;
    private static final Map<CommunicatorId, SimulatedFabric> FABRICS = new ConcurrentHashMap<>();

    final CommunicatorId id;
    final int size;
    private final CyclicBarrier barrier;
    private final Object[] deposits;

    private SimulatedFabric(CommunicatorId id, int size) {
        this.id = id;
        this.size = size;
        this.barrier = new CyclicBarrier(size);
        this.deposits = new Object[size];
    }

    static SimulatedFabric join(CommunicatorId id, int size) {
        SimulatedFabric f = FABRICS.computeIfAbsent(id, k -> new SimulatedFabric(k, size));
        if (f.size != size) {
            throw new IllegalArgumentException("communicator " + id + " has " + f.size + " ranks, not " + size);
        }
        return f;
    }

    /** Every member deposits {@code mine}; returns all deposits in rank order once all have deposited. */
    Object[] exchange(int rank, Object mine) {
        deposits[rank] = mine;
        await();
        Object[] all = deposits.clone();
        await();  // nobody deposits the next collective's data before everyone has read this one's
        return all;
    }

    private void await() {
        try {
            barrier.await(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted in a simulated collective", e);
        } catch (BrokenBarrierException | TimeoutException e) {
            throw new IllegalStateException("simulated collective of " + size + " ranks: not every rank came", e);
        }
    }

    /** The id of the sub-communicator of {@code color} (the same on every member that passes it). */
    CommunicatorId childId(int color) {
        byte[] parent = id.bytes();
        return new CommunicatorId(ByteBuffer.allocate(parent.length + 4).put(parent).putInt(color).array());
    }

    /** Members that passed {@code color}, ordered by key then parent rank: their parent ranks. */
    static List<Integer> members(Object[] colorKeyPairs, int color) {
        List<Integer> ranks = new ArrayList<>();
        for (int r = 0; r < colorKeyPairs.length; r++) {
            if (((int[]) colorKeyPairs[r])[0] == color) {
                ranks.add(r);
            }
        }
        ranks.sort(Comparator.<Integer>comparingInt(r -> ((int[]) colorKeyPairs[r])[1]).thenComparing(r -> r));
        return ranks;
    }

    static float[] sum(Object[] arrays, int from, int count) {
        float[] out = new float[count];
        for (Object o : arrays) {
            float[] a = (float[]) o;
            for (int i = 0; i < count; i++) {
                out[i] += a[from + i];
            }
        }
        return out;
    }

    static float[] copy(float[] a) {
        return a == null ? null : Arrays.copyOf(a, a.length);
    }
}
