package dev.aorta.analyzer.read;

import dev.aorta.analyzer.Fixtures;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

class KinetoReaderTest {

    private static RankTrace read(Path file) throws IOException {
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(file));
        assertThat(set.ranks()).hasSize(1);
        return set.ranks().iterator().next();
    }

    @Test
    void cudaTraceWithFloatTimestampsStepsAndDistributedRank() throws IOException {
        RankTrace r = read(Fixtures.file("kineto/a100_allreduce_rank0_of2.json.gz"));
        assertThat(r.rank()).isZero();
        assertThat(r.worldSize()).isEqualTo(2);
        assertThat(r.activities()).filteredOn(a -> a.kind() == ActivityKind.KERNEL).hasSize(2700);
        assertThat(r.activities()).filteredOn(a -> a.kind() == ActivityKind.MEMCPY).hasSize(960);
        assertThat(r.activities()).filteredOn(a -> a.kind() == ActivityKind.MEMSET).hasSize(114);
        assertThat(r.markers()).filteredOn(m -> m.kind() == Marker.Kind.ITERATION).extracting(Marker::step)
                .containsExactly(4L, 5L, 6L);
        // "ts": 4458676416788.066, "dur": 222442.191 (µs with ns decimals) read exactly
        Marker step4 = r.markers().stream().filter(m -> m.step() == 4).findFirst().orElseThrow();
        assertThat(step4.startNs()).isEqualTo(4458676416788066L);
        assertThat(step4.endNs() - step4.startNs()).isEqualTo(222442191L);
        assertThat(r.anchors()).containsExactly(new ClockAnchor(ClockDomain.KINETO_EPOCH_US, 0, ClockDomain.EPOCH,
                1711964646000000000L));
        assertThat(r.activities()).allMatch(a -> a.clock() == ClockDomain.KINETO_EPOCH_US);
        assertThat(r.activities()).extracting(DeviceActivity::stream).containsOnly(7L, 40L);
        assertThat(r.apiCalls()).hasSize(8740);
    }

    @Test
    void integerTimestampsAndGridBlockAndCorrelation() throws IOException {
        RankTrace r = read(Fixtures.file("kineto/a100_event_sync_3streams.json.gz"));
        DeviceActivity sgemm = r.activities().stream().filter(a -> a.name().equals("ampere_sgemm_128x64_nn"))
                .findFirst().orElseThrow();
        assertThat(sgemm.startNs()).isEqualTo(1712867402348700L * 1000);
        assertThat(sgemm.durationNs()).isEqualTo(123_000);
        assertThat(sgemm.grid()).isEqualTo(new Dim3(8, 16, 5));
        assertThat(sgemm.block()).isEqualTo(new Dim3(128, 1, 1));
        assertThat(sgemm.correlationId()).isEqualTo(27);
        assertThat(r.activities()).extracting(DeviceActivity::stream).containsOnly(20L, 24L, 28L);
        // "Stream Wait Event": stream 24 waits on an event recorded on 20 by the cudaEventRecord of correlation 1385
        assertThat(r.dependencies()).singleElement().satisfies(d -> {
            assertThat(d.recordStream()).isEqualTo(20);
            assertThat(d.waitStream()).isEqualTo(24);
            assertThat(d.event()).isEqualTo(19);
            assertThat(d.recordNs()).isEqualTo(1712867402367666L * 1000);
            assertThat(d.waitNs()).isEqualTo(1712867402367682L * 1000);
        });
        // no baseTimeNanoseconds: timestamps are epoch microseconds
        assertThat(r.anchors()).containsExactly(new ClockAnchor(ClockDomain.KINETO_EPOCH_US, 0, ClockDomain.EPOCH, 0));
    }

    @Test
    void rocmTraceWithStringStreamsAndOnlyHostSideProfilerSteps() throws IOException {
        RankTrace r = read(Fixtures.file("kineto/mi250_minitoy_rocm6.2.json.gz"));
        assertThat(r.activities()).filteredOn(a -> a.kind() == ActivityKind.KERNEL).hasSize(14);
        assertThat(r.activities()).filteredOn(a -> a.kind() == ActivityKind.MEMCPY).hasSize(2);
        assertThat(r.activities()).extracting(DeviceActivity::device).containsOnly(2);
        // the GPU-side "ProfilerStep#1" annotation must not make a second step 1
        assertThat(r.markers()).filteredOn(m -> m.kind() == Marker.Kind.ITERATION).extracting(Marker::step)
                .containsExactly(1L, 2L);
        assertThat(r.apiCalls()).filteredOn(c -> c.name().equals("hipMemcpyWithStream")).isNotEmpty();
    }

    @Test
    void truncatedGzipGivesThePartialTraceAndAWarningWithTheOffset(@TempDir Path tmp) throws IOException {
        Path full = Fixtures.file("kineto/a100_allreduce_rank0_of2.json.gz");
        Path cut = tmp.resolve("killed_run.json.gz");
        byte[] content;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(full))) {
            content = in.readAllBytes();
        }
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(cut))) {
            out.write(content, 0, content.length / 2);
        }
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(cut));
        RankTrace r = set.ranks().iterator().next();
        assertThat(r.activities()).isNotEmpty().hasSizeLessThan(2700 + 960 + 114);
        assertThat(set.warnings()).anySatisfy(w -> assertThat(w).contains("killed_run.json.gz")
                .contains("ends early").containsPattern("at byte \\d+"));
    }

    @Test
    void aGzipFileCutMidStreamIsCalledTruncatedAndCountsTheEventsItKept(@TempDir Path tmp) throws IOException {
        Path full = Fixtures.file("kineto/a100_allreduce_rank0_of2.json.gz");
        byte[] gzip = Files.readAllBytes(full);
        Path cut = Files.write(tmp.resolve("copied_too_early.json.gz"), java.util.Arrays.copyOf(gzip, gzip.length / 2));
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(cut));
        RankTrace r = set.ranks().iterator().next();
        String warning = set.warnings().stream().filter(w -> w.contains("copied_too_early.json.gz")).findFirst()
                .orElseThrow();
        assertThat(warning).contains("the file is truncated: its gzip data ends early")
                .doesNotContain("ZLIB").containsPattern("at byte \\d+ of the decompressed content");
        java.util.regex.Matcher kept = java.util.regex.Pattern.compile("kept the (\\d+) trace events").matcher(warning);
        assertThat(kept.find()).as(warning).isTrue();
        // every activity and runtime call kept came from one trace event read before the cut
        assertThat(Long.parseLong(kept.group(1))).isGreaterThanOrEqualTo(r.activities().size() + r.apiCalls().size())
                .isPositive();
    }

    @Test
    void microsecondDecimalsBecomeExactNanoseconds() {
        assertThat(JsonNumbers.microsToNanos("4458676416788.066".toCharArray(), 0, 17)).isEqualTo(4458676416788066L);
        assertThat(JsonNumbers.microsToNanos("1.5".toCharArray(), 0, 3)).isEqualTo(1500);
        assertThat(JsonNumbers.microsToNanos("2.0004".toCharArray(), 0, 6)).isEqualTo(2000);
        assertThat(JsonNumbers.microsToNanos("2.0005".toCharArray(), 0, 6)).isEqualTo(2001);
        assertThat(JsonNumbers.parseId("0x7f", -1)).isEqualTo(127);
        assertThat(JsonNumbers.parseId("12", -1)).isEqualTo(12);
    }

    private static String kineto(long baseTimeNs, String kernel) {
        return "{\"distributedInfo\": {\"rank\": 2, \"world_size\": 4}, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\","
                + " \"name\": \"" + kernel + "\", \"pid\": 0, \"tid\": 7, \"ts\": 10.5, \"dur\": 2,"
                + " \"args\": {\"stream\": \"0x7\", \"device\": 0, \"correlation\": 1}}],"
                + " \"baseTimeNanoseconds\": " + baseTimeNs + "}";
    }

    @Test
    void twoTracesOfOneRankWithDifferentBaseTimesLandOnOneTimeline(@TempDir Path tmp) throws IOException {
        Path first = Files.writeString(tmp.resolve("window1.json"), kineto(1_000_000_000L, "first"));
        Path second = Files.writeString(tmp.resolve("window2.json"), kineto(3_000_000_000L, "second"));
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(first, second));
        RankTrace r = set.ranks().iterator().next();
        assertThat(r.rank()).isEqualTo(2);
        assertThat(r.worldSize()).isEqualTo(4);
        assertThat(r.activities()).extracting(DeviceActivity::stream).containsOnly(7L);
        var t = new dev.aorta.analyzer.clock.RankTimeline(r, dev.aorta.core.metric.ActivityClassifier.defaults());
        assertThat(t.activities()).extracting(DeviceActivity::name).containsExactly("first", "second");
        assertThat(t.activities().get(1).startNs() - t.activities().get(0).startNs()).isEqualTo(2_000_000_000L);
        assertThat(t.activities().get(0).durationNs()).isEqualTo(2_000);
    }

    private static String kernel(String ts, String dur, String ph, String name) {
        return "{\"ph\":\"" + ph + "\",\"cat\":\"kernel\",\"name\":\"" + name + "\",\"pid\":0,\"tid\":7"
                + (ts == null ? "" : ",\"ts\":" + ts) + ",\"dur\":" + dur + ",\"args\":{\"stream\":7}}";
    }

    @Test
    void damagedDeviceRecordsAreSkippedCountedByReasonAndNeverReadAsPlausibleTimes(@TempDir Path tmp)
            throws IOException {
        String events = String.join(",", kernel("1000", "10", "X", "good"), kernel("\"abc\"", "10", "X", "a"),
                kernel("\"NaN\"", "10", "X", "b"), kernel("9300000000000000", "10", "X", "c"),
                kernel("2000", "-5", "X", "d"), kernel(null, "10", "X", "e"), kernel("3000", "10", "B", "f"),
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#99999999999999999999\",\"ts\":1,\"dur\":5}",
                kernel("3500", "10", "X", "g").replace("\"stream\":7", "\"stream\":7,\"grid\":[99999999999,1,1]"),
                kernel("3600", "10", "X", "h").replace("\"stream\":7", "\"correlation\":99999999999999999999"),
                kernel("4000", "10", "X", "after"));
        Path file = Files.writeString(tmp.resolve("damaged.json"), "{\"traceEvents\":[" + events + "]}");
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(file));
        assertThat(set.ranks().iterator().next().activities()).extracting(DeviceActivity::name)
                .containsExactly("good", "after");
        assertThat(set.ranks().iterator().next().markers()).isEmpty();
        assertThat(set.warnings()).singleElement().asString().contains("damaged.json: skipped 9 damaged records")
                .contains("2 device records whose \"ts\" not a number")
                .contains("1 device records whose \"ts\" too large for nanoseconds in 64 bits")
                .contains("1 device records with a negative \"dur\"").contains("1 device records without \"ts\"")
                .contains("1 device records with \"ph\":\"B\"").contains("1 steps whose number does not fit 64 bits")
                .contains("1 device records whose \"args.grid\" beyond 32 bits")
                .contains("1 device records whose \"args.correlation\" beyond 64 bits")
                .containsPattern("first at byte \\d+");
    }

    @Test
    void invalidUtf8InANameCostsThatByteNotTheRestOfTheFile(@TempDir Path tmp) throws IOException {
        byte[] bad = ("{\"traceEvents\":[" + kernel("1000", "10", "X", "ker\u00ffnel") + ","
                + kernel("2000", "10", "X", "next") + "]}").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        Path file = Files.write(tmp.resolve("latin1.json"), bad);
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(file));
        assertThat(set.ranks().iterator().next().activities()).extracting(DeviceActivity::name)
                .containsExactly("ker?nel", "next");
        assertThat(set.warnings()).singleElement().asString()
                .contains("latin1.json: 1 byte of invalid UTF-8 (in names or text) read as '?'");
    }

    @Test
    void aByteOrderMarkDoesNotHideTheFormat(@TempDir Path tmp) throws IOException {
        Path file = Files.writeString(tmp.resolve("bom.json"), "\ufeff{\"traceEvents\":[" + kernel("1000", "10", "X", "k")
                + "]}");
        assertThat(TraceLoader.withInstalledReaders().load(List.of(file)).ranks().iterator().next().activities())
                .hasSize(1);
    }

    @Test
    void aTraceWithNothingTheModelTakesSaysWhatItWasReadAsAndWhatIsMissing(@TempDir Path tmp) {
        Path file = tmp.resolve("cpu_only.json");
        org.assertj.core.api.Assertions.assertThatCode(() -> Files.writeString(file, "{\"traceEvents\":[{\"ph\":\"X\","
                + "\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"ts\":1,\"dur\":2}]}")).doesNotThrowAnyException();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TraceLoader.withInstalledReaders().load(List.of(file)))
                .hasMessage("no trace records found: " + file + " (read as kineto) holds no device activity, API call"
                        + " or marker with a usable time");
    }
}
