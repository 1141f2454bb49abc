package dev.aorta.analyzer.read;

import dev.aorta.analyzer.Fixtures;
import dev.aorta.analyzer.metrics.AnalysisOptions;
import dev.aorta.analyzer.metrics.TraceAnalysis;
import dev.aorta.analyzer.metrics.WindowReport;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.Marker;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** AORTA's own trainer logs ({@code rank_<r>_metrics.jsonl}, schema in docs/trace-formats.md; see aorta/README.md). */
class AortaMetricsReaderTest {

    @Test
    void stepsBecomeIterationsAndRangesBecomeActivitiesOnTheirStreams() throws IOException {
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(Fixtures.resource("aorta/rank_1_metrics.jsonl")));
        RankTrace r = set.ranks().iterator().next();
        assertThat(r.rank()).isEqualTo(1);
        assertThat(r.worldSize()).isEqualTo(2);
        assertThat(r.markers()).extracting(Marker::step).containsExactly(1L, 2L, 3L);
        // iterations laid end to end: 10 ms, then 12 ms, then 11 ms
        assertThat(r.markers()).extracting(Marker::startNs).containsExactly(0L, 10_000_000L, 22_000_000L);
        assertThat(r.activities()).filteredOn(a -> a.kind() == ActivityKind.COLLECTIVE).hasSize(5);
        assertThat(r.streams()).extracting(s -> s.role()).contains("compute", "allreduce", "reducescatter");
        assertThat(set.warnings()).anySatisfy(w -> assertThat(w).contains("rank_1_metrics.jsonl:4"));
    }

    @Test
    void ourOverlapEqualsAortasComputeComm() throws IOException {
        TraceAnalysis a = TraceAnalysis.of(TraceLoader.withInstalledReaders()
                .load(List.of(Fixtures.resource("aorta/rank_1_metrics.jsonl"))), AnalysisOptions.defaults());
        // overlap_ms.compute_comm of the three steps in the log: 2.0, 2.0, 1.0; compute 6.0, 7.0, 6.0 ms
        assertThat(a.windows()).extracting(w -> w.overlap().overlapNs()).containsExactly(2_000_000L, 2_000_000L, 1_000_000L);
        WindowReport step1 = a.windows().get(0);
        assertThat(step1.overlap().computeNs()).isEqualTo(6_000_000L);
        assertThat(step1.overlap().aortaOverlapRatio()).isCloseTo(2.0 / 6.0, within(1e-12));
        assertThat(step1.overlap().idleNs()).isEqualTo(500_000L);
    }
}
