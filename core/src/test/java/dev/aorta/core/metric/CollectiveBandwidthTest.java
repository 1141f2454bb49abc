package dev.aorta.core.metric;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** nccl-tests' bandwidth definitions (docs/metrics.md#collective-bandwidth). */
class CollectiveBandwidthTest {

    @ParameterizedTest
    @CsvSource({"allreduce, ALL_REDUCE", "allReduce, ALL_REDUCE", "ncclKernel_AllReduce_RING_LL_Sum_float, ALL_REDUCE",
            "_allgather_base, ALL_GATHER", "all_gather_into_tensor_coalesced, ALL_GATHER",
            "reduce_scatter_tensor, REDUCE_SCATTER", "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL, REDUCE_SCATTER",
            "alltoall_base, ALL_TO_ALL", "ncclKernel_Broadcast_RING_LL_Sum_int8_t, BROADCAST", "reduce, REDUCE",
            "ncclDevKernel_SendRecv, SEND_RECV", "send, SEND_RECV", "recv, SEND_RECV", "gather, GATHER",
            "scatter, SCATTER", "barrier, OTHER", "ncclDevKernel_Generic, OTHER"})
    void kindsAreReadFromPyTorchNcclAndKernelNames(String name, CollectiveBandwidth.Kind kind) {
        assertThat(CollectiveBandwidth.Kind.of(name)).isEqualTo(kind);
    }

    /** 8 ranks: all-reduce 2·7/8 = 1.75, all-gather 7/8, broadcast 1; without n only the n-free factors exist. */
    @Test
    void busFactorsAreNcclTests() {
        assertThat(CollectiveBandwidth.Kind.ALL_REDUCE.busFactor(8)).isEqualTo(1.75);
        assertThat(CollectiveBandwidth.Kind.ALL_GATHER.busFactor(8)).isEqualTo(0.875);
        assertThat(CollectiveBandwidth.Kind.REDUCE_SCATTER.busFactor(8)).isEqualTo(0.875);
        assertThat(CollectiveBandwidth.Kind.ALL_TO_ALL.busFactor(8)).isEqualTo(0.875);
        assertThat(CollectiveBandwidth.Kind.BROADCAST.busFactor(8)).isEqualTo(1.0);
        assertThat(CollectiveBandwidth.Kind.BROADCAST.busFactor(CollectiveBandwidth.UNKNOWN)).isEqualTo(1.0);
        assertThat(CollectiveBandwidth.Kind.ALL_REDUCE.busFactor(CollectiveBandwidth.UNKNOWN)).isNull();
        assertThat(CollectiveBandwidth.Kind.OTHER.busFactor(8)).isNull();
    }

    /**
     * Two all-reduces of 1 GB on 4 ranks taking 10 ms and 30 ms: algbw = 2 GB / 40 ms = 50 GB/s (the rate of the mean
     * call, not the mean of 100 and 33.3), busbw = 50 · 2·3/4 = 75 GB/s. A size the trace does not give has neither.
     */
    @Test
    void algbwIsTheRateOfTheMeanCallAndBusbwScalesIt() {
        List<CollectiveBandwidth> out = CollectiveBandwidth.of(List.of(
                new CollectiveBandwidth.Call(CollectiveBandwidth.Kind.ALL_REDUCE, 1_000_000_000, 4, 10_000_000),
                new CollectiveBandwidth.Call(CollectiveBandwidth.Kind.ALL_REDUCE, 1_000_000_000, 4, 30_000_000),
                new CollectiveBandwidth.Call(CollectiveBandwidth.Kind.ALL_GATHER, CollectiveBandwidth.UNKNOWN, 4, 5)));

        assertThat(out).hasSize(2);
        CollectiveBandwidth ar = out.get(0);
        assertThat(ar.count()).isEqualTo(2);
        assertThat(ar.totalNs()).isEqualTo(40_000_000);
        assertThat(ar.algbwGbps()).isCloseTo(50.0, within(1e-9));
        assertThat(ar.busbwGbps()).isCloseTo(75.0, within(1e-9));
        assertThat(out.get(1).algbwGbps()).isNull();
        assertThat(out.get(1).busbwGbps()).isNull();
    }

    /** nccl-tests' S is the larger buffer: an all-gather of 1 000 floats per rank on 8 ranks moves 32 000 B. */
    @Test
    void messageSizeIsTheLargerBuffer() {
        assertThat(CollectiveBandwidth.messageBytes(1000, 8000, 4)).isEqualTo(32_000);
    }

    /** 3 ranks start at 0, 5, 2 and end at 10, 11, 10: start skew 5 (rank 1 last), end skew 1. */
    @Test
    void skewIsLatestMinusEarliestAcrossRanks() {
        CollectiveSkew.Builder b = new CollectiveSkew.Builder();
        b.add(CollectiveBandwidth.Kind.ALL_REDUCE, 100, new int[] {0, 1, 2}, new long[] {0, 5, 2}, new long[] {10, 11, 10});
        b.add(CollectiveBandwidth.Kind.ALL_REDUCE, 100, new int[] {0, 1, 2}, new long[] {20, 21, 27}, new long[] {30, 30, 30});
        b.add(CollectiveBandwidth.Kind.ALL_REDUCE, 100, new int[] {0}, new long[] {0}, new long[] {1});

        CollectiveSkew s = b.build().get(0);
        assertThat(s.collectives()).isEqualTo(2);
        assertThat(s.startSkewNs().max()).isEqualTo(7);
        assertThat(s.startSkewNs().mean()).isEqualTo(6);
        assertThat(s.endSkewNs().max()).isEqualTo(1);
        assertThat(s.lastToStartRank()).isEqualTo(1);  // a tie (rank 1 once, rank 2 once): the lowest rank
        assertThat(s.timesLastToStart()).isEqualTo(1);
    }
}
