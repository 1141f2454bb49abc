package dev.aorta.analyzer.clock;

import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.analyzer.metrics.AnalysisOptions;
import dev.aorta.analyzer.metrics.Stragglers;
import dev.aorta.analyzer.metrics.TraceAnalysis;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two ranks whose clocks differ by 1 ms: each runs 3 iterations of compute then an all-reduce that ends at the same
 * true instant on both. Rank 1 computes 200 µs longer in iteration 2, so rank 0 waits for it there.
 */
class CollectiveAlignmentTest {
    private static final long RANK1_CLOCK_AHEAD = 1_000_000;

    private static TraceSet twoRanks() {
        TraceSet set = new TraceSet();
        for (int rank = 0; rank < 2; rank++) {
            RankTrace r = set.rank(rank);
            long skew = rank == 1 ? RANK1_CLOCK_AHEAD : 0;
            for (int step = 0; step < 3; step++) {
                long base = step * 10_000_000L;
                long compute = 5_000_000 + (rank == 1 && step == 2 ? 200_000 : 0);
                long collectiveEnd = base + 8_000_000;
                r.markers().add(new Marker(Marker.Kind.ITERATION, "step", rank, step, base + skew, base + 9_000_000 + skew,
                        ClockDomain.CUPTI));
                r.activities().add(activity(rank, "gemm", 7, base + skew, base + compute + skew));
                r.activities().add(activity(rank, "ncclDevKernel_AllReduce_Sum_f32", 13, base + compute + skew,
                        collectiveEnd + skew));
            }
        }
        return set;
    }

    private static DeviceActivity activity(int rank, String name, long stream, long start, long end) {
        return new DeviceActivity(ActivityKind.KERNEL, name, rank, 0, stream, start, end, 0, DeviceActivity.UNKNOWN,
                DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 0, ClockDomain.CUPTI);
    }

    /**
     * After alignment both ranks start the all-reduce of steps 0 and 1 at the same instant and rank 1 starts step 2's
     * 200 µs late (its longer compute): start skews 0, 0, 200 µs (mean 66 666.7 ns), rank 1 last to start once; the
     * ends agree (end skew 0). The size is unknown (the records carry none), the kind comes from the kernel name.
     */
    @Test
    void collectiveSkewIsTheArrivalSpreadOnAlignedClocks() {
        TraceAnalysis a = TraceAnalysis.of(twoRanks(), AnalysisOptions.defaults());
        assertThat(a.collectiveSkew()).hasSize(1);
        var skew = a.collectiveSkew().get(0);
        assertThat(skew.kind()).isEqualTo(dev.aorta.core.metric.CollectiveBandwidth.Kind.ALL_REDUCE);
        assertThat(skew.messageBytes()).isEqualTo(dev.aorta.core.metric.CollectiveBandwidth.UNKNOWN);
        assertThat(skew.collectives()).isEqualTo(3);
        assertThat(skew.startSkewNs().max()).isEqualTo(200_000);
        assertThat(skew.startSkewNs().mean()).isCloseTo(66_666.67, org.assertj.core.api.Assertions.within(0.01));
        assertThat(skew.endSkewNs().max()).isZero();
        assertThat(skew.lastToStartRank()).isEqualTo(1);
        assertThat(skew.timesLastToStart()).isEqualTo(1);
    }

    /**
     * The gemm ran 3 × 5 ms on rank 0 and 5 + 5 + 5.2 ms on rank 1 (30.2 ms over both, the top name): rank 1 is the
     * slowest (mean 5.067 ms), and its step 2 holds the 5.2 ms one; the all-reduce follows (9 + 8.8 ms).
     */
    @Test
    void kernelsAcrossRanksNameTheSlowestRankPerKernelAndStep() {
        TraceAnalysis a = TraceAnalysis.of(twoRanks(), AnalysisOptions.defaults());
        var gemm = a.kernelsAcrossRanks().get(0);
        assertThat(gemm.name()).isEqualTo("gemm");
        assertThat(gemm.totalNs()).isEqualTo(30_200_000);
        assertThat(gemm.slowestRank()).isEqualTo(1);
        assertThat(gemm.ranks()).extracting(e -> e.totalNs()).containsExactly(15_000_000L, 15_200_000L);
        assertThat(gemm.ranks().get(0).shareOfClass()).isEqualTo(1.0);
        assertThat(gemm.ranks().get(1).windowNs().values()).containsExactly(5_000_000L, 5_000_000L, 5_200_000L);
        var allReduce = a.kernelsAcrossRanks().get(1);
        assertThat(allReduce.totalNs()).isEqualTo(17_800_000);
        assertThat(allReduce.slowestRank()).isEqualTo(0);
    }

    @Test
    void matchingCollectiveEndsRecoversTheClockOffset() {
        List<RankTimeline> ranks = twoRanks().ranks().stream()
                .map(r -> new RankTimeline(r, ActivityClassifier.defaults())).toList();
        var offsets = CollectiveAlignment.align(ranks);
        assertThat(offsets.get(0).offsetNs()).isZero();
        assertThat(offsets.get(1).offsetNs()).isEqualTo(-RANK1_CLOCK_AHEAD);
        assertThat(offsets.get(1).matchedCollectives()).isEqualTo(3);
        assertThat(offsets.get(1).residualNs()).isZero();
        assertThat(offsets.get(1).aligned()).isTrue();
    }

    @Test
    void theRankArrivingLastAtTheCollectiveIsTheStraggler() {
        TraceAnalysis a = TraceAnalysis.of(twoRanks(), AnalysisOptions.defaults());
        assertThat(a.stragglers()).extracting(Stragglers::step).containsExactly(0L, 1L, 2L);
        Stragglers step2 = a.stragglers().get(2);
        assertThat(step2.stragglerRank()).isEqualTo(1);
        assertThat(step2.latenessNs()).isEqualTo(200_000);
        assertThat(a.stragglers().get(0).latenessNs()).isZero();
    }

    @Test
    void oneRunAlignsWithoutAWarning() {
        List<RankTimeline> ranks = twoRanks().ranks().stream()
                .map(r -> new RankTimeline(r, ActivityClassifier.defaults())).toList();
        assertThat(CollectiveAlignment.implausible(CollectiveAlignment.align(ranks), ranks)).isEmpty();
    }

    @Test
    void collectivesOfUnrelatedRunsMatchOnlyImplausiblyAndSaySo() {
        TraceSet set = new TraceSet();
        // rank 0: an all-reduce every 10 ms; rank 1, another run: every 37 ms, each lasting 1 ms
        for (int k = 0; k < 20; k++) {
            set.rank(0).activities().add(activity(0, "ncclDevKernel_AllReduce", 13, k * 10_000_000L,
                    k * 10_000_000L + 1_000_000));
            set.rank(1).activities().add(activity(1, "ncclDevKernel_AllReduce", 13, 5_000_000_000L + k * 37_000_000L,
                    5_000_000_000L + k * 37_000_000L + 1_000_000));
        }
        List<RankTimeline> ranks = set.ranks().stream().map(r -> new RankTimeline(r, ActivityClassifier.defaults()))
                .toList();
        assertThat(CollectiveAlignment.implausible(CollectiveAlignment.align(ranks), ranks)).singleElement().asString()
                .startsWith("rank 1: its clock alignment by collectives is implausible")
                .contains("20 matched collectives").contains("may not be one run");
    }
}
