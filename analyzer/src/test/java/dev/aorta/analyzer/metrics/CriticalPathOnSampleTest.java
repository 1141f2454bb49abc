package dev.aorta.analyzer.metrics;

import dev.aorta.core.metric.CriticalPath;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The critical path of each step of the A100 sample. That run is host-bound: HTA's idle-time breakdown of its compute
 * stream finds 540.1 of its 542.2 idle ms waiting for the host (HtaDefinitionsAgreementTest), so the path of each step
 * must run almost entirely through host calls; it ends at the step's last kernel end, starts no earlier than the host
 * step, and its parts add up to its length.
 */
class CriticalPathOnSampleTest {

    @Test
    void eachStepOfTheHostBoundA100RunIsHostBound() throws IOException {
        var t = LaunchedOpsTest.timeline("a100-allreduce/a100_allreduce_rank0_of2.json.gz");
        List<WindowReport> steps = RankAnalysis.analyze(t, AnalysisOptions.defaults(), new ArrayList<>());

        assertThat(steps).hasSize(3);
        for (WindowReport r : steps) {
            CriticalPath p = r.breakdowns().criticalPath();
            // a path stops at a call with no earlier call on its thread: it may start after the host step does
            assertThat(p.startNs()).isBetween(Math.min(r.window().startNs(), r.window().hostStartNs()),
                    r.window().startNs());
            assertThat(p.endNs()).isEqualTo(r.window().endNs());
            assertThat(p.hostNs() + p.deviceNs() + p.launchNs()).isEqualTo(p.lengthNs());
            assertThat((double) p.hostNs() / p.lengthNs()).as(r.window().label()).isGreaterThan(0.95);
        }
    }
}
