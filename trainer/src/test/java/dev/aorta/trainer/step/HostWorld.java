package dev.aorta.trainer.step;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The host-memory stand-in for NCCL: a collective is a rendezvous of its group's members (each blocks until all
 * have arrived, as in NCCL) at which every member sees every member's contribution. It runs on the issuing rank's
 * stream ({@link HostStreams}), so collectives on different streams may run at the same time; the n-th collective
 * a rank issues to a group meets the n-th of every other member. Members must call with the same description
 * (kind, target, size), or the collective fails: a rank issuing collectives in another order than its peers would
 * hang or corrupt data on a GPU.
 */
final class HostWorld {
    private static final long TIMEOUT_S = 60;
    private final Map<List<Integer>, Meeting> meetings = new ConcurrentHashMap<>();
    private volatile boolean aborted;

    private static final class Meeting {
        final CyclicBarrier arrived;
        final CyclicBarrier read;
        final float[][] contributions;
        final String[] descriptions;

        Meeting(int size) {
            arrived = new CyclicBarrier(size);
            read = new CyclicBarrier(size);
            contributions = new float[size][];
            descriptions = new String[size];
        }
    }

    /**
     * Every member's contribution, by group rank, once all members of {@code members} have arrived at their
     * {@code sequence}-th collective of this group.
     */
    float[][] exchange(int[] members, long sequence, int rank, String description, float[] contribution) {
        List<Integer> group = Arrays.stream(members).boxed().toList();
        List<Integer> key = new ArrayList<>(group);
        key.add(Math.toIntExact(sequence));
        Meeting m = meetings.computeIfAbsent(List.copyOf(key), k -> new Meeting(members.length));
        int g = group.indexOf(rank);
        m.contributions[g] = contribution.clone();
        m.descriptions[g] = description;
        await(m.arrived);
        float[][] all = new float[members.length][];
        for (int i = 0; i < members.length; i++) {
            if (!m.descriptions[i].equals(description)) {
                abort();
                throw new AssertionError("rank " + rank + " issued " + description + " while rank " + members[i]
                        + " of its group issued " + m.descriptions[i]);
            }
            all[i] = m.contributions[i];
        }
        await(m.read);
        return all;
    }

    /** Releases every rank waiting in a collective (they fail): one rank failed and the others must not hang. */
    void abort() {
        aborted = true;
        meetings.values().forEach(m -> {
            m.arrived.reset();
            m.read.reset();
        });
    }

    private void await(CyclicBarrier b) {
        if (aborted) {
            throw new IllegalStateException("a collective after a peer failed");
        }
        try {
            b.await(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted in a collective", e);
        } catch (BrokenBarrierException | TimeoutException e) {
            abort();
            throw new IllegalStateException("a collective's group did not meet (a peer failed or hangs)", e);
        }
    }
}
