package dev.aorta.analyzer.read;

import dev.aorta.analyzer.Fixtures;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * rocprofv3 CSVs of every header generation. The variant files in test resources hold the same three kernels
 * under the 6.2.0, 6.3, 6.4/7.x and rocpd-converted headers (values synthetic, column names as those versions
 * write them), so the reader must give the same records from each.
 */
class RocprofCsvReaderTest {

    private static TraceSet load(Path... files) throws IOException {
        return TraceLoader.withInstalledReaders().load(List.of(files));
    }

    private static RankTrace only(TraceSet set) {
        assertThat(set.ranks()).hasSize(1);
        return set.ranks().iterator().next();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"v6.2.0_kernel_trace.csv, false", "v6.3_kernel_trace.csv, false", "v7.0_kernel_trace.csv, true",
            "rocpd_converted_kernel_trace.csv, true"})
    void everyKernelTraceHeaderGenerationReadsAlike(String file, boolean hasStreamId) throws IOException {
        List<DeviceActivity> kernels = only(load(Fixtures.resource("rocprof/" + file))).activities();
        assertThat(kernels).hasSize(3).allMatch(a -> a.kind() == ActivityKind.KERNEL && a.clock() == ClockDomain.BOOTTIME);
        DeviceActivity first = kernels.get(0);
        assertThat(first.name()).isEqualTo("void addition_kernel<float>(float*, float const*, float const*, int, int)");
        assertThat(first.startNs()).isEqualTo(8819330200067564L);
        assertThat(first.endNs()).isEqualTo(8819330200116308L);
        assertThat(first.correlationId()).isEqualTo(1451);
        assertThat(first.device()).isEqualTo(4);
        // Grid_Size counts work-items: 1024 work-items in workgroups of 64 are 16 blocks
        assertThat(first.grid()).isEqualTo(new Dim3(16, 1, 1));
        assertThat(first.block()).isEqualTo(new Dim3(64, 1, 1));
        // the stream is Stream_Id where the generation has it, else the queue
        assertThat(kernels).extracting(DeviceActivity::stream)
                .containsExactly(hasStreamId ? new Long[] {10L, 11L, 10L} : new Long[] {1L, 2L, 1L});
    }

    @Test
    void documentationSamplesOfAllFourTables() throws IOException {
        // the four samples come from four different runs (their boot-time clocks are days apart): read one by one
        RankTrace kernels = only(load(Fixtures.file("rocprof/doc_kernel_trace.csv")));
        RankTrace copies = only(load(Fixtures.file("rocprof/doc_memory_copy_trace.csv")));
        RankTrace markers = only(load(Fixtures.file("rocprof/doc_marker_api_trace.csv")));
        RankTrace hip = only(load(Fixtures.file("rocprof/doc_hip_runtime_trace.csv")));
        assertThat(kernels.activities()).filteredOn(a -> a.kind() == ActivityKind.KERNEL).hasSize(7);
        assertThat(copies.activities()).filteredOn(a -> a.kind() == ActivityKind.MEMCPY)
                .extracting(DeviceActivity::name).containsExactly("MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST");
        assertThat(markers.markers()).extracting(Marker::name).contains("hipLaunchKernel range", "before hipLaunchKernel");
        assertThat(hip.apiCalls()).extracting(ApiCall::name).contains("hipMalloc", "hipLaunchKernel", "hipMemcpy");
        assertThat(hip.apiCalls()).filteredOn(c -> c.name().equals("hipLaunchKernel")).singleElement()
                .satisfies(c -> assertThat(c.correlationId()).isEqualTo(5));
    }

    @Test
    void aMissingRequiredColumnIsOneClearErrorNamingTheFile() {
        Path file = Fixtures.resource("rocprof/missing_column_kernel_trace.csv");
        assertThatThrownBy(() -> load(file)).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("missing_column_kernel_trace.csv")
                .hasMessageContaining("Kernel_Name, Direction or Domain+Function");
    }

    @Test
    void aRowWithADamagedTimestampIsSkippedAndCountedWithItsLine(@TempDir Path tmp) throws IOException {
        List<String> lines = Files.readAllLines(Fixtures.file("rocprof/doc_kernel_trace.csv"));
        lines.set(2, lines.get(2).replaceFirst(",(\\d{16}),", ",-$1,"));
        lines.set(3, lines.get(3).replaceFirst(",(\\d{16}),", ",abc,"));
        lines.set(4, lines.get(4).replaceFirst(",(\\d{16}),", ",$1.4,"));
        Path file = Files.write(tmp.resolve("damaged_kernel_trace.csv"), lines);
        TraceSet set = load(file);
        assertThat(only(set).activities()).hasSize(5);
        assertThat(set.warnings()).anySatisfy(w -> assertThat(w).contains("damaged_kernel_trace.csv: skipped 1")
                .contains("rows that cannot be read (column Start_Timestamp is not a number) (first at line 4)"));
        assertThat(set.warnings()).anySatisfy(w -> assertThat(w).contains("damaged_kernel_trace.csv: skipped 1")
                .contains("device records starting before their clock's origin"));
    }

    @Test
    void aRowCutShortIsSkippedWithItsLineAndTheRestIsKept() throws IOException {
        TraceSet set = load(Fixtures.resource("rocprof/truncated_memory_copy_trace.csv"));
        assertThat(only(set).activities()).hasSize(1);
        assertThat(set.warnings()).anySatisfy(w -> assertThat(w).contains("truncated_memory_copy_trace.csv")
                .contains("the file is truncated: its last line (line 3) has no line end"));
    }

    @Test
    void legacyRocprofResultsCsv() throws IOException {
        RankTrace r = only(load(Fixtures.resource("rocprof/results.csv")));
        assertThat(r.activities()).hasSize(2);
        DeviceActivity gemm = r.activities().get(0);
        assertThat(gemm.name()).isEqualTo("Cijk_Ailk_Bljk_SB_MT64x64x16");
        assertThat(gemm.startNs()).isEqualTo(1500);
        assertThat(gemm.endNs()).isEqualTo(4500);
        assertThat(gemm.queuedNs()).isEqualTo(1000);
        assertThat(gemm.grid()).isEqualTo(new Dim3(256, 1, 1));
        assertThat(r.activities().get(1).stream()).isEqualTo(1);
    }
}
