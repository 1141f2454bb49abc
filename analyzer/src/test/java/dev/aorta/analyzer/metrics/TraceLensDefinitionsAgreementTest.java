package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.Fixtures;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.core.metric.ActivityClass;
import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.core.metric.OverlapMetrics;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Our whole-trace numbers on TraceLens's own test traces (AMD-AGI/TraceLens, MIT, in the test resources under
 * {@code tracelens/} with its licence), against the tables TraceLens wrote for them and keeps beside them:
 * <ul>
 *   <li>{@code gpu_timeline.csv} (TraceLens {@code GPUEventAnalyser.compute_metrics}): total_time = last GPU event end
 *       − first start, busy_time = |union of all GPU events|, idle_time = total − busy, computation_time = |union of
 *       the non-communication kernels and memsets|, total_memcpy_time = |union of the memcpys|, exposed_memcpy_time =
 *       |memcpy − computation − communication|. Ours, for the whole trace: |W|, |C∪M∪Y|, |W| − busy, |C|, |Y|,
 *       |Y−C−M| (docs/metrics.md).</li>
 *   <li>{@code kernel_summary.csv}: per parent op, kernel name and stream, the count and summed duration of the
 *       kernels; summed over parents and streams per name it is our kernel breakdown's count and total.</li>
 * </ul>
 * Where the definitions differ: TraceLens counts memsets as computation, we count them as memory traffic (neither trace
 * has one, so the numbers meet), and it reroutes ROCm 7.1's rocclr copy kernels to memcpy (neither trace has them). It
 * also reads {@code ts} and {@code dur} (microseconds with three decimals, about 1.4e12 and 4.9e12 here) as binary
 * doubles, whose spacing there is up to 2^-10 µs, where we read the decimal text exactly to the nanosecond: its sums
 * may differ from ours by up to half a spacing per event end, so by at most 1 ns per device event of the trace, which
 * is the tolerance (the differences found are 0.05 to 3 ns).
 */
class TraceLensDefinitionsAgreementTest {
    /** The spacing of doubles near 4.9e12 µs (the larger trace's timestamps) is 2^-10 µs; 1 ns bounds it. */
    private static final double DOUBLE_SPACING_MS = 1e-6;

    @ParameterizedTest(name = "{0}")
    @CsvSource({"h100-bert-small/gaunernst_bert-small-uncased__1016001.json.gz",
            "sglang-decode/sglang_Qwen3-8B_decode.json.gz"})
    void theGpuTimelineEqualsTraceLensTable(String trace) throws IOException {
        Path file = Fixtures.resource("tracelens/" + trace);
        WindowReport whole = wholeTrace(file);
        Map<String, Double> tl = gpuTimeline(file.resolveSibling("gpu_timeline.csv"));
        OverlapMetrics o = whole.overlap();
        // each event's two ends, as doubles, may be off by half a spacing each (see the class comment)
        double tolerance = events(file) * DOUBLE_SPACING_MS;

        assertThat(tl.get("total_comm_time")).isZero();
        assertThat(o.commNs()).isZero();
        assertThat(o.windowNs() / 1e6).as("total_time").isCloseTo(tl.get("total_time"), within(DOUBLE_SPACING_MS));
        assertThat(o.busyNs() / 1e6).as("busy_time").isCloseTo(tl.get("busy_time"), within(tolerance));
        assertThat(o.idleNs() / 1e6).as("idle_time").isCloseTo(tl.get("idle_time"), within(tolerance));
        assertThat(o.computeNs() / 1e6).as("computation_time").isCloseTo(tl.get("computation_time"), within(tolerance));
        assertThat(o.memoryNs() / 1e6).as("total_memcpy_time").isCloseTo(tl.get("total_memcpy_time"), within(tolerance));
        assertThat(o.exposedMemcpyNs() / 1e6).as("exposed_memcpy_time")
                .isCloseTo(tl.get("exposed_memcpy_time"), within(tolerance));
    }

    @Test
    void theKernelBreakdownCountsAndSumsEachKernelAsTraceLensKernelSummary() throws IOException {
        Path file = Fixtures.resource("tracelens/h100-bert-small/gaunernst_bert-small-uncased__1016001.json.gz");
        WindowReport whole = wholeTrace(file);
        Map<String, long[]> tlCount = new HashMap<>();
        Map<String, Double> tlSumUs = new HashMap<>();
        try (Reader in = Files.newBufferedReader(file.resolveSibling("kernel_summary.csv"))) {
            for (CSVRecord r : CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build().parse(in)) {
                String name = r.get("Kernel name");
                tlCount.computeIfAbsent(name, k -> new long[1])[0] += Long.parseLong(r.get("Kernel duration (µs)_count"));
                tlSumUs.merge(name, Double.parseDouble(r.get("Kernel duration (µs)_sum")), Double::sum);
            }
        }
        List<KernelBreakdown.Entry> compute = whole.kernels().stream()
                .filter(k -> k.activityClass() == ActivityClass.COMPUTE).toList();
        assertThat(compute).hasSize(10);  // the top 10 names by time
        for (KernelBreakdown.Entry k : compute) {
            assertThat(tlCount).as(k.name()).containsKey(k.name());
            assertThat(k.count()).as(k.name()).isEqualTo(tlCount.get(k.name())[0]);
            // each duration is a difference of two doubles: off by at most a spacing (1 ns)
            assertThat(k.totalNs() / 1e3).as(k.name()).isCloseTo(tlSumUs.get(k.name()), within(1e-3 * k.count()));
        }
    }

    /** The device events (kernels, copies) of a trace. */
    private static int events(Path file) throws IOException {
        return TraceLoader.withInstalledReaders().load(List.of(file)).ranks().iterator().next().activities().size();
    }

    private static WindowReport wholeTrace(Path file) throws IOException {
        TraceAnalysis a = TraceAnalysis.of(TraceLoader.withInstalledReaders().load(List.of(file)),
                new AnalysisOptions(WindowMode.WHOLE, ActivityClassifier.defaults(), 10));
        assertThat(a.windows()).hasSize(1);
        return a.windows().get(0);
    }

    private static Map<String, Double> gpuTimeline(Path csv) throws IOException {
        Map<String, Double> out = new HashMap<>();
        try (Reader in = Files.newBufferedReader(csv)) {
            for (CSVRecord r : CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build().parse(in)) {
                out.put(r.get("type"), Double.parseDouble(r.get("time ms")));
            }
        }
        return out;
    }
}
