package dev.aorta.workloads.comm;

import dev.aorta.core.metric.CollectiveBandwidth;
import dev.aorta.workloads.session.CommDType;
import dev.aorta.workloads.session.Communicator;
import dev.aorta.workloads.session.GpuBuffer;
import dev.aorta.workloads.session.GpuStream;

import java.util.Arrays;
import java.util.Locale;

/**
 * The collectives of the workload, with nccl-tests' size conventions and bus-bandwidth factors
 * (github.com/NVIDIA/nccl-tests, doc/PERFORMANCE.md): "size" S is the all-reduce/broadcast buffer, the
 * gathered output of all-gather, the input of reduce-scatter and each rank's whole buffer of all-to-all;
 * algbw = S / time, busbw = algbw · factor(n).
 */
public enum Collective {
    ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, BROADCAST, ALL_TO_ALL;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Collective parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT).replace('-', '_');
        for (Collective c : values()) {
            if (c.label().equals(t) || c.label().replace("_", "").equals(t)) {
                return c;
            }
        }
        throw new IllegalArgumentException("--collective: unknown collective '" + text + "'; expected one of "
                + Arrays.stream(values()).map(Collective::label).toList());
    }

    /** busbw / algbw for {@code n} ranks ≥ 1: the one definition, core's {@link CollectiveBandwidth.Kind#busFactor}. */
    public double busBandwidthFactor(int n) {
        return CollectiveBandwidth.Kind.valueOf(name()).busFactor(n);
    }

    /** Whether each rank's part is S/n (so S must split evenly into n blocks of whole elements). */
    boolean splitsAcrossRanks() {
        return this == ALL_GATHER || this == REDUCE_SCATTER || this == ALL_TO_ALL;
    }

    /** Bytes of the send buffer for size {@code s} on {@code n} ranks. */
    public long sendBytes(long s, int n) {
        return this == ALL_GATHER ? s / n : s;
    }

    /** Bytes of the receive buffer. */
    public long recvBytes(long s, int n) {
        return this == REDUCE_SCATTER ? s / n : s;
    }

    /** Checks that size {@code s} fits the collective on {@code n} ranks; the error names {@code option}. */
    public void requireSize(long s, CommDType type, int n, String option) {
        long unit = splitsAcrossRanks() ? (long) type.bytes() * n : type.bytes();
        if (s <= 0 || s % unit != 0) {
            throw new IllegalArgumentException(option + " " + s + " bytes: " + label() + " of " + type.label()
                    + (splitsAcrossRanks() ? " on " + n + " ranks needs a multiple of " + unit + " bytes (whole "
                    + type.label() + " elements per rank)" : " needs a positive multiple of " + unit + " bytes"));
        }
    }

    /** Enqueues the collective of size {@code s} on {@code stream}. */
    public void issue(Communicator c, GpuBuffer send, GpuBuffer recv, long s, CommDType type, GpuStream stream) {
        long elements = s / type.bytes();
        int n = c.size();
        switch (this) {
            case ALL_REDUCE -> c.allReduce(send, recv, elements, type, stream);
            case ALL_GATHER -> c.allGather(send, recv, elements / n, type, stream);
            case REDUCE_SCATTER -> c.reduceScatter(send, recv, elements / n, type, stream);
            case BROADCAST -> c.broadcast(send, recv, elements, type, 0, stream);
            case ALL_TO_ALL -> c.allToAll(send, recv, elements / n, type, stream);
        }
    }

    /**
     * What the receive buffer must hold when every rank filled its send buffer with (world rank + 1):
     * element i of {@code recvElements} for a group of world ranks {@code members} seen from {@code groupRank}.
     */
    public float expected(int i, int recvElements, java.util.List<Integer> members, int groupRank) {
        int n = members.size();
        float sum = 0;
        for (int m : members) {
            sum += m + 1;
        }
        return switch (this) {
            case ALL_REDUCE, REDUCE_SCATTER -> sum;
            case BROADCAST -> members.getFirst() + 1;
            case ALL_GATHER, ALL_TO_ALL -> members.get(i / (recvElements / n)) + 1;
        };
    }
}
