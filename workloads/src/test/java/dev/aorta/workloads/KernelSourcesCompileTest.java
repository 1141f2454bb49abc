package dev.aorta.workloads;

import dev.aorta.gpu.nvrtc.Nvrtc;
import dev.aorta.testing.NvccCompiler;
import dev.aorta.workloads.kernels.WorkloadKernels;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every workload kernel source compiles for sm_90 (no GPU needed): with NVRTC where installed, else with nvcc, else
 * skipped with the reason.
 */
class KernelSourcesCompileTest {
    @TestFactory
    Stream<DynamicTest> everyKernelSourceCompilesForHopper() throws IOException, URISyntaxException {
        // by a file: test classes of the same package are a directory of that name too
        Path kernels = Path.of(WorkloadKernels.class.getResource("fill.cu").toURI()).getParent();
        List<String> sources;
        try (Stream<Path> files = Files.list(kernels)) {
            sources = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".cu")).sorted().toList();
        }
        assertThat(sources).contains("elementwise.cu", "fill.cu");
        return sources.stream().map(file -> DynamicTest.dynamicTest(file, () -> assertThat(NvccCompiler.compileOrSkip(
                WorkloadKernels.source(file), file, "sm_90", () -> Nvrtc.get()::compile)).isNotEmpty()));
    }
}
