package dev.aorta.analyzer.read;

import dev.aorta.analyzer.Fixtures;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import org.junit.jupiter.api.Test;

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
}
