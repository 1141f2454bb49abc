package dev.aorta.analyzer.metrics;

import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.analyzer.report.Aggregate;
import dev.aorta.analyzer.report.LabelRun;
import dev.aorta.analyzer.report.OverlapReport;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A plugin {@link Analysis} runs on every window after the built-in metrics, and the report aggregates its values. */
class PluginAnalysisTest {

    /** The busy time of stream 1 in the window, and NaN when it has no kernel there. */
    private static final Analysis STREAM_ONE = new Analysis() {
        @Override
        public String name() {
            return "stream_one";
        }

        @Override
        public List<Value> measure(RankTimeline timeline, Window window) {
            long busy = timeline.activities().stream().filter(a -> a.stream() == 1 && a.startNs() >= window.startNs()
                    && a.startNs() < window.endNs()).mapToLong(a -> a.durationNs()).sum();
            return List.of(new Value("busy_ns", busy), new Value("first_kernel_ns", busy == 0 ? Double.NaN : busy));
        }
    };

    private static final Analysis FAILING = new Analysis() {
        @Override
        public String name() {
            return "failing";
        }

        @Override
        public List<Value> measure(RankTimeline timeline, Window window) {
            throw new IllegalStateException("broken plugin");
        }
    };

    private static TraceAnalysis analyze(Analysis... analyses) {
        TimelineBuilder b = new TimelineBuilder().step(1, 0, 100).kernel("a", 1, 10, 40)
                .step(2, 100, 200).kernel("b", 2, 110, 150)
                .step(3, 200, 300).kernel("c", 1, 210, 230);
        return TraceAnalysis.of(b.set(), new AnalysisOptions(WindowMode.STEPS, ActivityClassifier.defaults(), 10,
                new Analyses(List.of(analyses), List.of("plugin Analysis skipped: Provider com.example.Gone not found"))));
    }

    @Test
    void eachWindowCarriesTheValuesOfTheAnalysis() {
        TraceAnalysis a = analyze(STREAM_ONE);

        assertThat(a.windows()).extracting(r -> r.analyses().get(0).values().get(0).value())
                .containsExactly(30.0, 0.0, 20.0);
        assertThat(a.windows().get(0).analyses().get(0).valuesText()).isEqualTo("busy_ns 30  first_kernel_ns 30");
        assertThat(a.windows().get(1).analyses().get(0).valuesText()).isEqualTo("busy_ns 0  first_kernel_ns n/a");
        assertThat(a.warnings()).contains("plugin Analysis skipped: Provider com.example.Gone not found");
    }

    @Test
    void aFailingAnalysisIsAWarningPerWindow_andTheOthersStillRun() {
        TraceAnalysis a = analyze(FAILING, STREAM_ONE);

        assertThat(a.windows()).allSatisfy(r -> assertThat(r.analyses()).extracting(AnalysisResult::analysis)
                .containsExactly("stream_one"));
        assertThat(a.warnings()).contains("analysis failing failed on rank 0, step 2 (java.lang.IllegalStateException:"
                + " broken plugin); its values are missing for that window");
    }

    @Test
    void theReportAggregatesEachValueOverTheIterations_leavingOutUndefinedOnes() {
        LabelRun run = new LabelRun("base", Path.of("run"), analyze(STREAM_ONE));

        Map<String, Aggregate> values = new OverlapReport(List.of(run), "base", List.of()).analysisAggregates(run)
                .get("stream_one");

        assertThat(values.get("busy_ns")).isEqualTo(Aggregate.of(new double[] {30, 0, 20}));
        assertThat(values.get("first_kernel_ns").count()).isEqualTo(2);
        assertThat(values.get("first_kernel_ns").mean()).isEqualTo(25.0);
    }
}
