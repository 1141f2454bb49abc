package dev.aorta.analyzer.read;

import dev.aorta.analyzer.Fixtures;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.Marker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import java.io.IOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RocprofJsonReaderTest {

    @Test
    void readsEveryDispatchOfTheMi350RunWithNamesFromTheKernelSymbols() throws IOException {
        RankTrace r = TraceLoader.withInstalledReaders()
                .load(List.of(Fixtures.file("rocprof/mi350_rocprofv3_results.json.gz"))).ranks().iterator().next();
        assertThat(r.activities()).hasSize(43915).allMatch(a -> a.kind() == ActivityKind.KERNEL
                && a.clock() == ClockDomain.BOOTTIME);
        DeviceActivity first = r.activities().get(0);
        // {"correlation_id":{"internal":1},"start_timestamp":63857982592000,"end_timestamp":63857982594840,
        //  agent 37946 = gpu_index 0, workgroup 512, grid 512 work-items = 1 block, stream handle 0 → queue 16}
        assertThat(first.startNs()).isEqualTo(63857982592000L);
        assertThat(first.endNs()).isEqualTo(63857982594840L);
        assertThat(first.correlationId()).isEqualTo(1);
        assertThat(first.device()).isZero();
        assertThat(first.block()).isEqualTo(new Dim3(512, 1, 1));
        assertThat(first.grid()).isEqualTo(new Dim3(1, 1, 1));
        assertThat(first.stream()).isEqualTo(16);
        assertThat(r.activities()).filteredOn(a -> a.name().startsWith("ncclDevKernel_Generic")).isNotEmpty();
        assertThat(r.activities()).noneMatch(a -> a.name().startsWith("kernel#"));
    }

    /** A small results.json with the record kinds the mi350 run lacks (API, marker and copy records). */
    private static final String SMALL = readSmall();

    private static String readSmall() {
        try {
            return Files.readString(Fixtures.resource("rocprof/small_results.json"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void apiMarkerAndCopyRecordsWithNamesFromTheStringTablesEvenWhenSymbolsComeLast(@TempDir Path tmp) throws IOException {
        Path file = Files.writeString(tmp.resolve("x_results.json"), SMALL);
        RankTrace r = TraceLoader.withInstalledReaders().load(List.of(file)).ranks().iterator().next();
        assertThat(r.activities()).extracting(DeviceActivity::name).containsExactlyInAnyOrder("k", "MEMORY_COPY");
        DeviceActivity k = r.activities().stream().filter(a -> a.name().equals("k")).findFirst().orElseThrow();
        assertThat(k.stream()).isEqualTo(9);
        assertThat(k.device()).isZero();
        assertThat(k.grid()).isEqualTo(new Dim3(2, 1, 1));
        assertThat(r.apiCalls()).extracting(ApiCall::name).containsExactly("hipLaunchKernel");
        assertThat(r.apiCalls().get(0).correlationId()).isEqualTo(3);
        assertThat(r.markers()).extracting(Marker::name).containsExactly("train_step");
        assertThat(r.activities()).filteredOn(a -> a.kind() == ActivityKind.MEMCPY).singleElement()
                .satisfies(c -> assertThat(c.bytes()).isEqualTo(4096));
    }

    @Test
    void aTruncatedDocumentKeepsTheRecordsReadAndWarnsWithTheOffset(@TempDir Path tmp) throws IOException {
        Path file = Files.writeString(tmp.resolve("cut_results.json"), SMALL.substring(0, SMALL.indexOf("\"kernel_dispatch\"")));
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(file));
        assertThat(set.ranks().iterator().next().activities()).extracting(DeviceActivity::name).containsExactly("MEMORY_COPY");
        assertThat(set.warnings()).anySatisfy(w -> assertThat(w).contains("cut_results.json").contains("at byte"));
    }

    @Test
    void aFileCutBeforeItsFirstRecordFailsSayingItIsTruncated(@TempDir Path tmp) throws IOException {
        // the MI350 results start with agents and kernel symbols: 300 kB of gzip hold no dispatch yet
        byte[] gzip = Files.readAllBytes(Fixtures.file("rocprof/mi350_rocprofv3_results.json.gz"));
        Path cut = Files.write(tmp.resolve("half_copied_results.json.gz"), java.util.Arrays.copyOf(gzip, 300_000));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TraceLoader.withInstalledReaders().load(List.of(cut)))
                .isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("no trace records found")
                .hasMessageContaining("half_copied_results.json.gz: the file is truncated: its gzip data ends early")
                .hasMessageContaining("kept the 0 device records read before it");
    }

    @Test
    void aKernelWithoutItsSymbolIsClassUnknownAndCountedNotGuessedAsCompute(@TempDir Path tmp) throws IOException {
        String noSymbols = SMALL.replaceAll(",\\s*\"kernel_symbols\":\\[[^\\]]*\\]", "");
        Path file = Files.writeString(tmp.resolve("nosym_results.json"), noSymbols);
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(file));
        assertThat(set.ranks().iterator().next().activities()).filteredOn(a -> a.name().equals("kernel#1"))
                .singleElement().satisfies(a -> assertThat(a.kind()).isEqualTo(ActivityKind.OTHER));
        assertThat(set.warnings()).anySatisfy(w -> assertThat(w).contains("nosym_results.json")
                .contains("1 kernel dispatches (0.000 ms summed)").contains("class unknown"));
    }

    @Test
    void recordsWithoutAUsableTimestampAreSkippedAndCounted(@TempDir Path tmp) throws IOException {
        String damaged = SMALL.replace("\"start_timestamp\":300,", "").replace("\"start_timestamp\":100", "\"start_timestamp\":\"abc\"");
        Path file = Files.writeString(tmp.resolve("damaged_results.json"), damaged);
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(file));
        RankTrace r = set.ranks().iterator().next();
        assertThat(r.activities()).extracting(DeviceActivity::name).containsExactly("k");
        assertThat(r.apiCalls()).isEmpty();
        assertThat(set.warnings()).anySatisfy(w -> assertThat(w).contains("damaged_results.json")
                .contains("1 MEMCPY records without a whole-number start_timestamp")
                .contains("1 HIP API records without a whole-number start_timestamp"));
    }

    @Test
    void aRecordWithANumberBeyondItsRangeCostsThatRecordNotTheRestOfTheFile(@TempDir Path tmp) throws IOException {
        String damaged = SMALL.replace("\"thread_id\":5", "\"thread_id\":99999999999999999999")
                .replace("\"bytes\":4096", "\"bytes\":\"many\"");
        Path file = Files.writeString(tmp.resolve("big_results.json"), damaged);
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(file));
        RankTrace r = set.ranks().iterator().next();
        assertThat(r.apiCalls()).isEmpty();
        assertThat(r.activities()).extracting(DeviceActivity::name).containsExactly("k");
        assertThat(r.markers()).extracting(Marker::name).containsExactly("train_step");
        assertThat(set.warnings()).anySatisfy(w -> assertThat(w).contains("big_results.json")
                .contains("1 HIP API records with a value out of range (first at byte")
                .contains("1 MEMCPY records with text where a number belongs"));
    }
}
