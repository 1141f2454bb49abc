package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.Fixtures;
import dev.aorta.core.metric.ActivityClass;
import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.core.metric.OverlapMetrics;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.event.DeviceActivity;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The overlap metrics (docs/metrics.md) of every window of the real traces, checked against an independent computation: a sweep over all
 * activity edges counting, between consecutive edges, how many compute, communication and memory activities run.
 */
class OverlapMetricsBruteForceTest {

    @ParameterizedTest
    @ValueSource(strings = {"kineto/a100_allreduce_rank0_of2.json.gz", "kineto/a100_event_sync_3streams.json.gz",
            "kineto/mi250_minitoy_rocm6.2.json.gz", "rocprof/mi350_rocprofv3_results.json.gz",
            "rocprof/doc_kernel_trace.csv"})
    void everyWindowMatchesTheSweep(String fixture) throws IOException {
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(Fixtures.file(fixture)));
        RankTimeline t = new RankTimeline(set.ranks().iterator().next(), ActivityClassifier.defaults());
        ClassIntervals unions = new ClassIntervals(t);
        List<Window> windows = new ArrayList<>(WindowPlanner.windows(t, WindowMode.STEPS, new ArrayList<>()));
        windows.add(WindowPlanner.whole(t));
        assertThat(t.activities()).isNotEmpty();
        for (Window w : windows) {
            OverlapMetrics m = OverlapMetrics.of(w.startNs(), w.endNs(), unions.compute(), unions.communication(),
                    unions.memory());
            long[] expected = sweep(t, w);
            assertThat(m.windowNs()).as(w.label()).isEqualTo(w.lengthNs());
            assertThat(m.busyNs()).as("busy %s", w.label()).isEqualTo(expected[0]);
            assertThat(m.computeNs()).as("compute %s", w.label()).isEqualTo(expected[1]);
            assertThat(m.commNs()).as("comm %s", w.label()).isEqualTo(expected[2]);
            assertThat(m.overlapNs()).as("overlap %s", w.label()).isEqualTo(expected[3]);
            assertThat(m.exposedMemcpyNs()).as("exposed memcpy %s", w.label()).isEqualTo(expected[4]);
            assertThat(m.idleNs()).isEqualTo(w.lengthNs() - expected[0]);
            assertThat(m.exposedCommNs()).isEqualTo(expected[2] - expected[3]);
            if (expected[2] == 0) {
                assertThat(m.commOverlapPct()).as("undefined without communication").isNull();
            } else {
                assertThat(m.commOverlapPct()).isCloseTo(100.0 * expected[3] / expected[2], within(1e-9));
            }
            if (expected[1] == 0) {
                assertThat(m.aortaOverlapRatio()).as("undefined without compute").isNull();
            } else {
                assertThat(m.aortaOverlapRatio()).isCloseTo((double) expected[3] / expected[1], within(1e-12));
            }
        }
    }

    /** {busy, compute, comm, compute∩comm, memory only} by sweeping activity edges inside the window. */
    private static long[] sweep(RankTimeline t, Window w) {
        List<long[]> edges = new ArrayList<>(); // {time, class ordinal, +1/-1}
        for (int i = 0; i < t.activities().size(); i++) {
            DeviceActivity a = t.activities().get(i);
            ActivityClass c = t.classOf(i);
            long s = Math.max(a.startNs(), w.startNs());
            long e = Math.min(a.endNs(), w.endNs());
            if (c == ActivityClass.OTHER || e <= s) {
                continue;
            }
            edges.add(new long[] {s, c.ordinal(), 1});
            edges.add(new long[] {e, c.ordinal(), -1});
        }
        edges.sort((x, y) -> Long.compare(x[0], y[0]));
        int[] active = new int[ActivityClass.values().length];
        long[] out = new long[5];
        long last = Long.MIN_VALUE;
        for (long[] e : edges) {
            if (last != Long.MIN_VALUE && e[0] > last) {
                long d = e[0] - last;
                boolean c = active[ActivityClass.COMPUTE.ordinal()] > 0;
                boolean m = active[ActivityClass.COMMUNICATION.ordinal()] > 0;
                boolean y = active[ActivityClass.MEMORY.ordinal()] > 0;
                out[0] += c || m || y ? d : 0;
                out[1] += c ? d : 0;
                out[2] += m ? d : 0;
                out[3] += c && m ? d : 0;
                out[4] += y && !c && !m ? d : 0;
            }
            active[(int) e[1]] += (int) e[2];
            last = e[0];
        }
        return out;
    }
}
