package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.core.metric.CollectiveBandwidth;
import dev.aorta.core.metric.GemmThroughput;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Collective bandwidth and GEMM throughput read from what PyTorch recorded about the ops behind the kernels, on the
 * repository's sample traces; the expected numbers were computed by hand from the traces' JSON (below).
 */
class LaunchedOpsTest {
    private static final Path SAMPLES = Path.of("").toAbsolutePath().getParent().resolve("samples/traces");

    /**
     * The A100 trace's 21 NCCL kernels, linked to their {@code record_param_comms} op through the launch call's
     * External id: 15 all-reduces of 5 sizes and 6 broadcasts of 2, each 3 times, 2 ranks. The largest by time:
     * all-reduce of 2 049 000 Float (8 196 000 B), 3 kernels of 11 820.962 µs in all, so algbw = 3 · 8 196 000 B /
     * 11 820 962 ns = 2.0801 GB/s and busbw = algbw · 2(2−1)/2 = 2.0801 GB/s; broadcast of 53 120 Float
     * (212 480 B), 91.007 µs in all: algbw = busbw = 3 · 212 480 / 91 007 = 7.0043 GB/s.
     */
    @Test
    void collectivesOfTheA100TraceHaveNcclsBandwidths() throws IOException {
        Breakdowns b = Breakdowns.wholeTrace(timeline("a100-allreduce/a100_allreduce_rank0_of2.json.gz"), 10);

        assertThat(b.collectives()).hasSize(7);
        assertThat(b.collectives()).extracting(CollectiveBandwidth::count).containsOnly(3);
        CollectiveBandwidth top = b.collectives().get(0);
        assertThat(top.kind()).isEqualTo(CollectiveBandwidth.Kind.ALL_REDUCE);
        assertThat(top.messageBytes()).isEqualTo(8_196_000);
        assertThat(top.groupSize()).isEqualTo(2);
        assertThat(top.totalNs()).isEqualTo(11_820_962);
        assertThat(top.algbwGbps()).isCloseTo(2.0801, within(1e-4));
        assertThat(top.busbwGbps()).isCloseTo(2.0801, within(1e-4));
        CollectiveBandwidth broadcast = b.collectives().stream()
                .filter(c -> c.kind() == CollectiveBandwidth.Kind.BROADCAST && c.messageBytes() == 212_480)
                .findFirst().orElseThrow();
        assertThat(broadcast.totalNs()).isEqualTo(91_007);
        assertThat(broadcast.algbwGbps()).isCloseTo(7.0043, within(1e-4));
        assertThat(broadcast.busbwGbps()).isCloseTo(7.0043, within(1e-4));
        // Long is 8 bytes: the second broadcast is 53 elements, 424 B
        assertThat(b.collectives()).anySatisfy(c -> assertThat(c.messageBytes()).isEqualTo(424));
    }

    /**
     * The MI250 trace was recorded with shapes. {@code aten::addmm} (External id 13) with Input Dims [[128], [5, 128],
     * [128, 128]] is M=5, N=128, K=128: 2·5·128·128 = 163 840 FLOP; it launched a bias broadcast (6.88 µs) and the
     * GEMM (17.6 µs), 24.48 µs, so 163 840 / 24 480 ns = 6.693 GFLOP/s = 0.006693 TFLOP/s. {@code aten::mm} (530),
     * [[128, 5], [5, 128]], is M=128, N=128, K=5, the same FLOPs in one kernel of 12.64 µs: 0.012962 TFLOP/s. Its
     * parents {@code aten::linear} and {@code AddmmBackward0} launched no kernel of their own and count nowhere.
     */
    @Test
    void gemmsOfTheMi250TraceHaveTheirShapesAndRates() throws IOException {
        Breakdowns b = Breakdowns.wholeTrace(timeline("mi250-minitoy/mi250_minitoy_rocm6.2.json.gz"), 10);

        assertThat(b.gemms()).hasSize(2);
        GemmThroughput addmm = b.gemms().get(0);
        assertThat(addmm.shape()).isEqualTo(new GemmThroughput.Shape(5, 128, 128, 1, "float"));
        assertThat(addmm.ops()).isEqualTo(1);
        assertThat(addmm.deviceNs()).isEqualTo(24_480);
        assertThat(addmm.flopsPerOp()).isEqualTo(163_840);
        assertThat(addmm.tflops()).isCloseTo(0.006693, within(1e-6));
        GemmThroughput mm = b.gemms().get(1);
        assertThat(mm.shape()).isEqualTo(new GemmThroughput.Shape(128, 128, 5, 1, "float"));
        assertThat(mm.deviceNs()).isEqualTo(12_640);
        assertThat(mm.tflops()).isCloseTo(0.012962, within(1e-6));
        // no collective in a single-GPU toy
        assertThat(b.collectives()).isEmpty();
    }

    /** A trace recorded without shapes (the A100 one) has GEMM kernels but no GEMM rows rather than made-up ones. */
    @Test
    void withoutRecordedShapesThereAreNoGemmRows() throws IOException {
        assertThat(Breakdowns.wholeTrace(timeline("a100-allreduce/a100_allreduce_rank0_of2.json.gz"), 10).gemms())
                .isEmpty();
    }

    /**
     * The agent's own records: an NCCL all-reduce call of 1 000 000 B (its {@code bytes} argument) whose kernel ran
     * 1 ms gives algbw 1 GB/s; the trace says nothing of the group, so busbw is undefined. Its all-gather's
     * {@code bytes} is what one rank sends: without the group size S is unknown. A cuBLAS call with m, n, k = 64, 32,
     * 16 whose kernel ran 2 µs: 2·64·32·16 = 65 536 FLOP / 2 000 ns = 0.032768 TFLOP/s.
     */
    @Test
    void agentCollectiveAndGemmCallsCarryTheirOwnSizes() {
        TimelineBuilder b = new TimelineBuilder()
                .activity(dev.aorta.core.event.ActivityKind.KERNEL, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 9, 0,
                        1_000_000, 1, dev.aorta.core.event.DeviceActivity.UNKNOWN)
                .activity(dev.aorta.core.event.ActivityKind.KERNEL, "ncclDevKernel_AllGather_RING_LL", 9, 2_000_000,
                        2_500_000, 2, dev.aorta.core.event.DeviceActivity.UNKNOWN)
                .activity(dev.aorta.core.event.ActivityKind.KERNEL, "sm90_xmma_gemm", 7, 3_000_000, 3_002_000, 3,
                        dev.aorta.core.event.DeviceActivity.UNKNOWN);
        b.trace().apiCalls().add(agentCall("allReduce", 1, java.util.Map.of("collective", "allReduce", "count", 250_000L,
                "dtype", "float32", "bytes", 1_000_000L)));
        b.trace().apiCalls().add(agentCall("allGather", 2, java.util.Map.of("collective", "allGather", "count", 1000L,
                "dtype", "float32", "bytes", 4000L)));
        b.trace().apiCalls().add(agentCall("cublasSgemm_v2", 3, java.util.Map.of("m", 64L, "n", 32L, "k", 16L)));
        Breakdowns w = Breakdowns.wholeTrace(b.timeline(), 10);

        CollectiveBandwidth allReduce = w.collectives().stream()
                .filter(c -> c.kind() == CollectiveBandwidth.Kind.ALL_REDUCE).findFirst().orElseThrow();
        assertThat(allReduce.messageBytes()).isEqualTo(1_000_000);
        assertThat(allReduce.algbwGbps()).isCloseTo(1.0, within(1e-12));
        assertThat(allReduce.busbwGbps()).isNull();
        CollectiveBandwidth allGather = w.collectives().stream()
                .filter(c -> c.kind() == CollectiveBandwidth.Kind.ALL_GATHER).findFirst().orElseThrow();
        assertThat(allGather.messageBytes()).isEqualTo(CollectiveBandwidth.UNKNOWN);
        assertThat(allGather.algbwGbps()).isNull();
        assertThat(w.gemms()).singleElement().satisfies(g -> {
            assertThat(g.shape()).isEqualTo(new GemmThroughput.Shape(64, 32, 16, 1, ""));
            assertThat(g.tflops()).isCloseTo(0.032768, within(1e-9));
        });
    }

    private static dev.aorta.core.event.ApiCall agentCall(String name, long correlation, java.util.Map<String, Object> args) {
        return new dev.aorta.core.event.ApiCall(name, 1, 0, 0, 10, correlation, 0, args,
                dev.aorta.core.event.ClockDomain.CUPTI);
    }

    static RankTimeline timeline(String sample) throws IOException {
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(SAMPLES.resolve(sample)));
        return new RankTimeline(set.ranks().iterator().next(), ActivityClassifier.defaults());
    }
}
