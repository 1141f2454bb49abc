package dev.aorta.core.metric;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Algorithm and bus bandwidth of collectives (docs/metrics.md#collective-bandwidth), nccl-tests' definitions applied
 * to the collectives a trace recorded. The collectives are grouped by kind, message size S and group size n; per
 * group: the count, the summed device time and its statistics, and
 * <ul>
 *   <li><b>algbw</b> = count · S / Σ device time, in GB/s with 1 GB = 10⁹ B (the mean rate of the group's calls,
 *   nccl-tests' {@code algbw} of its mean time). S is nccl-tests' size: the larger of the collective's input and
 *   output buffer on one rank (all-gather: its whole output, n times what each rank sends; reduce-scatter: its whole
 *   input). Undefined ({@code null}) when the trace does not say S;</li>
 *   <li><b>busbw</b> = algbw · factor(kind, n): 2(n−1)/n for all-reduce, (n−1)/n for all-gather, reduce-scatter,
 *   all-to-all, gather and scatter, 1 for broadcast, reduce and send/receive. The rate each rank's busiest link
 *   carried, comparable with the link's peak whatever the collective. Undefined without S, without n (where the
 *   factor needs it), and for a kind nccl-tests does not define.</li>
 * </ul>
 * The device time is the collective kernel's: it includes the time the first rank to arrive waits for the last, so
 * a rank that waits long reports a low bandwidth (the cross-rank skew, {@link CollectiveSkew}, says how long).
 */
public record CollectiveBandwidth(Kind kind, long messageBytes, int groupSize, int count, long totalNs,
                                  SampleStats durationNs) {
    /** A message size or group size the trace does not give. */
    public static final int UNKNOWN = -1;

    /** What a collective does, read from PyTorch's, NCCL's and the agent's names for it. */
    public enum Kind {
        ALL_REDUCE("all_reduce"), ALL_GATHER("all_gather"), REDUCE_SCATTER("reduce_scatter"), ALL_TO_ALL("all_to_all"),
        BROADCAST("broadcast"), REDUCE("reduce"), GATHER("gather"), SCATTER("scatter"), SEND_RECV("send_recv"),
        OTHER("other");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        /**
         * The kind a name states: PyTorch's {@code Collective name} ({@code allreduce}, {@code _allgather_base},
         * {@code reduce_scatter_tensor_coalesced}), NCCL's API ({@code allReduce}) or kernel
         * ({@code ncclKernel_AllReduce_RING_LL_Sum_float}, {@code ncclDevKernel_SendRecv}); else {@link #OTHER}.
         */
        public static Kind of(String name) {
            String n = name == null ? "" : name.toLowerCase(Locale.ROOT).replaceAll("[^a-z]", "");
            if (n.contains("allreduce")) {
                return ALL_REDUCE;
            }
            if (n.contains("reducescatter")) {
                return REDUCE_SCATTER;
            }
            if (n.contains("allgather")) {
                return ALL_GATHER;
            }
            if (n.contains("alltoall")) {
                return ALL_TO_ALL;
            }
            if (n.contains("broadcast") || n.contains("bcast")) {
                return BROADCAST;
            }
            if (n.contains("sendrecv") || n.endsWith("send") || n.endsWith("recv") || n.contains("kernelsend")
                    || n.contains("kernelrecv")) {
                return SEND_RECV;
            }
            if (n.contains("reduce")) {
                return REDUCE;
            }
            if (n.contains("gather")) {
                return GATHER;
            }
            if (n.contains("scatter")) {
                return SCATTER;
            }
            return OTHER;
        }

        /** busbw / algbw for a group of {@code n} ranks; null where it is not defined (no n, or kind OTHER). */
        public Double busFactor(int n) {
            return switch (this) {
                case BROADCAST, REDUCE, SEND_RECV -> 1.0;
                case ALL_REDUCE -> n > 0 ? 2.0 * (n - 1) / n : null;
                case ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, GATHER, SCATTER -> n > 0 ? (double) (n - 1) / n : null;
                case OTHER -> null;
            };
        }
    }

    /**
     * One collective as it ran on one rank.
     *
     * @param messageBytes S, or {@link #UNKNOWN}
     * @param groupSize    the ranks of its communicator, or {@link #UNKNOWN}
     */
    public record Call(Kind kind, long messageBytes, int groupSize, long durationNs) {
    }

    /** nccl-tests' S from a collective's input and output buffers on one rank, in elements of {@code elementBytes}. */
    public static long messageBytes(long inElements, long outElements, long elementBytes) {
        return Math.max(inElements, outElements) * elementBytes;
    }

    public double meanNs() {
        return durationNs.mean();
    }

    /** count · S / Σ time in GB/s (bytes per ns); null without S or time. */
    public Double algbwGbps() {
        return messageBytes <= 0 || totalNs <= 0 ? null : (double) count * messageBytes / totalNs;
    }

    /** algbw · the kind's bus factor for the group; null where either is undefined. */
    public Double busbwGbps() {
        Double alg = algbwGbps();
        Double factor = kind.busFactor(groupSize);
        return alg == null || factor == null ? null : alg * factor;
    }

    /** One entry per (kind, S, n), most total device time first. */
    public static List<CollectiveBandwidth> of(List<Call> calls) {
        // equals and hashCode written out: a record's generated ones are bound through invokedynamic at first use,
        // which spun 16 method-handle classes in each short analysis (the maps keep insertion order, so no output
        // depends on the hash)
        record Key(Kind kind, long bytes, int groupSize) {
            @Override
            public boolean equals(Object o) {
                return o instanceof Key k && k.kind == kind && k.bytes == bytes && k.groupSize == groupSize;
            }

            @Override
            public int hashCode() {
                return (31 * kind.hashCode() + Long.hashCode(bytes)) * 31 + groupSize;
            }
        }
        Map<Key, SampleStats.Samples> groups = new LinkedHashMap<>();
        Map<Key, long[]> totals = new LinkedHashMap<>();
        for (Call c : calls) {
            Key k = new Key(Objects.requireNonNull(c.kind()), c.messageBytes() > 0 ? c.messageBytes() : UNKNOWN,
                    c.groupSize() > 0 ? c.groupSize() : UNKNOWN);
            groups.computeIfAbsent(k, x -> new SampleStats.Samples()).add(c.durationNs());
            totals.computeIfAbsent(k, x -> new long[1])[0] += c.durationNs();
        }
        List<CollectiveBandwidth> out = new ArrayList<>();
        groups.forEach((k, s) -> out.add(new CollectiveBandwidth(k.kind(), k.bytes(), k.groupSize(), s.count(),
                totals.get(k)[0], s.stats())));
        out.sort((a, b) -> a.totalNs() != b.totalNs() ? Long.compare(b.totalNs(), a.totalNs())
                : a.kind() != b.kind() ? a.kind().compareTo(b.kind()) : Long.compare(a.messageBytes(), b.messageBytes()));
        return out;
    }
}
