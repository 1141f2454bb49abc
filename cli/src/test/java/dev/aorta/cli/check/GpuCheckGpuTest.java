package dev.aorta.cli.check;

import dev.aorta.gpu.RequiresGpu;
import org.junit.jupiter.api.Test;

import java.io.PrintStream;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The whole GPU check, small sizes, on a machine with a GPU (scripts/gpu-check.sh runs the full one). */
@RequiresGpu
class GpuCheckGpuTest {

    @Test
    void everyStepPassesOnThisGpu() {
        List<CheckResult> rows = new GpuCheck(new GpuCheck.Options(0, 1000, 3, null, 1024, true),
                new PrintStream(PrintStream.nullOutputStream())).run();
        assertThat(rows).filteredOn(r -> r.status() == CheckResult.Status.FAIL
                        && !r.item().contains("throughput")) // small GEMMs do not reach the 700 TFLOP/s bar
                .isEmpty();
        assertThat(rows).extracting(CheckResult::step).contains("2 NVRTC", "3 cuBLAS", "5 NCCL", "6 memory", "7 CUPTI");
    }
}
