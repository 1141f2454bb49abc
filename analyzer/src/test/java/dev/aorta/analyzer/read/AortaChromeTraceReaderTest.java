package dev.aorta.analyzer.read;

import dev.aorta.analyzer.export.PerfettoExporter;
import dev.aorta.analyzer.metrics.AnalysisOptions;
import dev.aorta.analyzer.metrics.TraceAnalysis;
import dev.aorta.analyzer.metrics.Window;
import dev.aorta.analyzer.metrics.WindowReport;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * aorta analyze reads the Chrome traces aorta writes: what the analyzer's export (aorta merge, the trainer's
 * trace_stepN.json) carries gives, read back, the numbers the records it was written from give.
 */
class AortaChromeTraceReaderTest {
    private static final Path SAMPLES = Path.of("").toAbsolutePath().getParent().resolve("samples/traces");

    @TempDir
    Path dir;

    @Test
    void theA100SampleExportedAndReadBackGivesTheSameNumbersInEveryStep() throws IOException {
        TraceAnalysis direct = analyze(SAMPLES.resolve("a100-allreduce/a100_allreduce_rank0_of2.json.gz"));
        TraceAnalysis back = analyze(export(direct, "a100.json"));

        assertThat(back.warnings()).isEmpty();
        assertSameNumbers(direct, back);
        // the steps are measured on the device, which needs the launches' correlation ids to have come back
        assertThat(back.windows()).extracting(r -> r.window().basis())
                .containsOnly(Window.Basis.DEVICE).hasSize(3);
    }

    @Test
    void aMergedExportOfTwoRanksGivesEachRankItsCallsStreamsAndDependencies() throws IOException {
        TraceSet set = new TraceSet();
        for (int rank = 0; rank < 2; rank++) {
            RankTrace t = set.rank(rank);
            long skew = rank * 3_000;  // rank 1's clock runs 3 µs behind: the export aligns it
            t.streams().add(new StreamInfo(7, 0, 0, 0, "comm"));
            for (int step = 0; step < 3; step++) {
                long s = 1_000_000 + step * 100_000L + skew;
                t.markers().add(new Marker(Marker.Kind.ITERATION, "step " + step, rank, step, s, s + 60_000,
                        ClockDomain.HOST_MONOTONIC));
                t.apiCalls().add(new ApiCall("cuLaunchKernel", 1, 3, s + 1_000, s + 2_000, 10 + step * 2, 0,
                        Map.of("kind", "launch"), ClockDomain.HOST_MONOTONIC));
                t.apiCalls().add(new ApiCall("allReduce", 1, 7, s + 2_000, s + 3_000, 11 + step * 2, 0,
                        Map.of("kind", "collective", "bytes", 4096L), ClockDomain.HOST_MONOTONIC));
                t.activities().add(new DeviceActivity(ActivityKind.KERNEL, "gemm", rank, 0, 3, s + 5_000,
                        s + 40_000 + rank * 5_000, 10 + step * 2, s + 1_500, DeviceActivity.UNKNOWN, new Dim3(8, 1, 1),
                        new Dim3(256, 1, 1), 0, ClockDomain.HOST_MONOTONIC));
                t.activities().add(new DeviceActivity(ActivityKind.KERNEL, "ncclDevKernel_AllReduce", rank, 0, 7,
                        s + 30_000, s + 70_000, 11 + step * 2, DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN,
                        Dim3.NONE, Dim3.NONE, 4096, ClockDomain.HOST_MONOTONIC));
                t.dependencies().add(new Dependency(step, 3, s + 40_000, 7, s + 30_000,
                        ClockDomain.HOST_MONOTONIC));
            }
        }
        TraceAnalysis direct = TraceAnalysis.of(set, AnalysisOptions.defaults());
        Path exported = export(direct, "merged.json");
        TraceSet read = TraceLoader.withInstalledReaders().load(List.of(exported));
        TraceAnalysis back = TraceAnalysis.of(read, AnalysisOptions.defaults());

        assertThat(read.ranks()).extracting(RankTrace::rank).containsExactly(0, 1);
        for (RankTrace r : read.ranks()) {
            assertThat(r.apiCalls()).hasSize(6);
            assertThat(r.apiCalls().get(1).args()).containsEntry("bytes", 4096).containsEntry("kind", "collective");
            assertThat(r.dependencies()).hasSize(3);
            assertThat(r.streams()).extracting(StreamInfo::role).containsExactly("comm");
            assertThat(r.markers()).extracting(Marker::step).containsExactly(0L, 1L, 2L);
        }
        assertSameNumbers(direct, back);
        assertThat(back.collectiveSkew()).isEqualTo(direct.collectiveSkew());
        assertThat(back.kernelsAcrossRanks()).isEqualTo(direct.kernelsAcrossRanks());
    }

    @Test
    void aMergeExportWrittenBeforeVersion1IsReadByItsClassesWithAWarning() throws IOException {
        // the shape the export had before it carried the kinds: "cat" is the class, no correlation on API calls
        Path old = Files.writeString(dir.resolve("old.json"), """
                {"displayTimeUnit":"ms","traceEvents":[{"ph":"M","name":"process_name","pid":0,"tid":0,\
                "args":{"name":"rank 0"}},{"ph":"M","name":"thread_name","pid":0,"tid":-1,"args":{"name":"iterations"}},\
                {"ph":"X","name":"step 4","cat":"iteration","pid":0,"tid":-1,"ts":0.000,"dur":100.000},\
                {"ph":"X","name":"gemm","cat":"compute","pid":0,"tid":3,"ts":10.000,"dur":50.000,\
                "args":{"device":0,"stream":3,"correlation":5}},\
                {"ph":"X","name":"ncclKernel","cat":"communication","pid":0,"tid":7,"ts":40.000,"dur":40.000,\
                "args":{"device":0,"stream":7,"correlation":6}},\
                {"ph":"X","name":"cudaLaunchKernel","cat":"api","pid":0,"tid":1099511627777,"ts":1.000,"dur":2.000}]}
                """);
        TraceAnalysis a = analyze(old);

        assertThat(a.warnings()).anyMatch(w -> w.contains("old.json") && w.contains("before version 1"));
        WindowReport step = a.windows().get(0);
        assertThat(step.window().step()).isEqualTo(4);
        assertThat(step.overlap().computeNs()).isEqualTo(50_000);
        assertThat(step.overlap().commNs()).isEqualTo(40_000);
        assertThat(step.overlap().overlapNs()).isEqualTo(20_000);
    }

    @Test
    void aRunProfileTraceWrittenBeforeVersion1IsReadByItsKindsWithTheTrackAsStream() throws IOException {
        // aorta run --profile's shape before the mark (Jackson's indented output): "cat" is the kind, the track the
        // workload's stream index; the Kineto reader took its kernels and silently dropped its copies
        Path old = Files.writeString(dir.resolve("hetero_kernels_s2_trace.json"), """
                {
                  "traceEvents" : [ {
                    "ph" : "M",
                    "name" : "process_name",
                    "pid" : 0,
                    "args" : {
                      "name" : "GPU 0 NVIDIA H100 80GB HBM3 - hetero_kernels"
                    }
                  }, {
                    "ph" : "X", "cat" : "kernel", "name" : "gemm", "pid" : 0, "tid" : 0, "ts" : 0.0, "dur" : 40.0,
                    "args" : { "correlation" : 1 }
                  }, {
                    "ph" : "X", "cat" : "memcpy", "name" : "HtoD", "pid" : 0, "tid" : 1, "ts" : 30.0, "dur" : 20.0,
                    "args" : { "correlation" : 2 }
                  } ],
                  "displayTimeUnit" : "ns",
                  "otherData" : { "timing_source" : "cupti", "clock" : "cupti", "workload" : "hetero_kernels" }
                }
                """);
        TraceAnalysis a = analyze(old);

        assertThat(a.warnings()).anyMatch(w -> w.contains("hetero_kernels_s2_trace.json")
                && w.contains("before version 1"));
        WindowReport whole = a.windows().get(0);
        assertThat(whole.overlap().computeNs()).isEqualTo(40_000);
        assertThat(whole.overlap().memoryNs()).isEqualTo(20_000);
        assertThat(whole.overlap().exposedMemcpyNs()).isEqualTo(10_000);
        assertThat(whole.streams()).extracting(s -> s.stream()).containsExactly(0L, 1L);
    }

    @Test
    void aVersionNewerThanThisReaderKnowsIsAnErrorNamingTheFileAndBothVersions() throws IOException {
        Path newer = Files.writeString(dir.resolve("newer.json"),
                "{\"otherData\":{\"aorta_trace_version\":9,\"pid_is\":\"rank\"},\"traceEvents\":[]}");

        assertThatThrownBy(() -> TraceLoader.withInstalledReaders().load(List.of(newer)))
                .hasMessageContaining("newer.json").hasMessageContaining("version 9")
                .hasMessageContaining("versions up to 1");
    }

    @Test
    void anExportCutShortIsKeptUpToTheCutWithAWarningSayingWhereAndHowManyEventsWereRead() throws IOException {
        Path whole = export(analyze(SAMPLES.resolve("a100-allreduce/a100_allreduce_rank0_of2.json.gz")), "whole.json");
        byte[] bytes = Files.readAllBytes(whole);
        Path cut = Files.write(dir.resolve("cut.json"), java.util.Arrays.copyOf(bytes, bytes.length / 2));
        TraceSet all = TraceLoader.withInstalledReaders().load(List.of(whole));
        TraceSet half = TraceLoader.withInstalledReaders().load(List.of(cut));
        String warning = half.warnings().stream().filter(w -> w.contains("cut.json")).findFirst().orElseThrow();
        assertThat(warning).contains("the file is truncated: its JSON ends early (at byte")
                .containsPattern("kept the \\d+ trace events read before it");
        assertThat(records(half)).isPositive().isLessThan(records(all));
    }

    private static long records(TraceSet set) {
        RankTrace r = set.ranks().iterator().next();
        return r.activities().size() + r.apiCalls().size() + r.markers().size();
    }

    private static TraceAnalysis analyze(Path file) throws IOException {
        return TraceAnalysis.of(TraceLoader.withInstalledReaders().load(List.of(file)), AnalysisOptions.defaults());
    }

    private Path export(TraceAnalysis a, String name) throws IOException {
        Path out = dir.resolve(name);
        try (OutputStream o = Files.newOutputStream(out)) {
            PerfettoExporter.write(a.timelines(), a.offsets(), o);
        }
        return out;
    }

    /** Every number of every window but its absolute times, which the export counts from its first record. */
    private static void assertSameNumbers(TraceAnalysis direct, TraceAnalysis back) {
        assertThat(back.windows()).hasSameSizeAs(direct.windows());
        for (int i = 0; i < direct.windows().size(); i++) {
            WindowReport d = direct.windows().get(i);
            WindowReport b = back.windows().get(i);
            String what = "rank " + d.rank() + " " + d.window().label();
            assertThat(b.rank()).as(what).isEqualTo(d.rank());
            assertThat(b.window().label()).as(what).isEqualTo(d.window().label());
            assertThat(b.overlap()).as(what).isEqualTo(d.overlap());
            assertThat(b.streams()).as(what).isEqualTo(d.streams());
            assertThat(b.kernels()).as(what).isEqualTo(d.kernels());
            assertThat(b.breakdowns().idle()).as(what).isEqualTo(d.breakdowns().idle());
            assertThat(b.breakdowns().criticalPath().lengthNs()).as(what)
                    .isEqualTo(d.breakdowns().criticalPath().lengthNs());
            assertThat(b.breakdowns().criticalPath().hostNs()).as(what)
                    .isEqualTo(d.breakdowns().criticalPath().hostNs());
            assertThat(b.launch()).as(what).isEqualTo(d.launch());
            assertThat(b.dispatch()).as(what).isEqualTo(d.dispatch());
        }
    }
}
