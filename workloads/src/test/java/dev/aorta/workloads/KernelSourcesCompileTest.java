package dev.aorta.workloads;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Every kernel source compiles for sm_90 with nvcc (no GPU needed); skipped where nvcc is missing. */
class KernelSourcesCompileTest {
    @TempDir
    Path dir;

    @TestFactory
    Stream<DynamicTest> everyKernelSourceCompilesForHopper() throws IOException, URISyntaxException {
        // by a file: test classes of the same package are a directory of that name too
        Path kernels = Path.of(dev.aorta.workloads.kernels.WorkloadKernels.class.getResource("fill.cu").toURI())
                .getParent();
        List<Path> sources;
        try (Stream<Path> files = Files.list(kernels)) {
            sources = files.filter(p -> p.toString().endsWith(".cu")).sorted().toList();
        }
        assertThat(sources).extracting(p -> p.getFileName().toString()).contains("elementwise.cu", "fill.cu");
        return sources.stream().map(src -> DynamicTest.dynamicTest(src.getFileName().toString(), () -> {
            Assumptions.assumeTrue(nvccAvailable(), "nvcc not on PATH: kernel compile check skipped");
            Process p = new ProcessBuilder("nvcc", "-arch=sm_90", "-cubin", "-o",
                    dir.resolve(src.getFileName() + ".cubin").toString(), src.toString()).redirectErrorStream(true).start();
            String log = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(log).isZero();
        }));
    }

    private static boolean nvccAvailable() {
        try {
            Process p = new ProcessBuilder("nvcc", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }
}
