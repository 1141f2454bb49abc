package dev.aorta.workloads.launchoverhead;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CUDA C of kernels/codebook.cu itself, run on the CPU: compiled with g++ under a small emulation (one OS
 * thread per CUDA thread, {@code __syncthreads} a barrier; test resources {@code emulation/}) and driven through
 * the argmin and balanced sequences, every intermediate result compared with plain loops. Catches what the host
 * model cannot: a wrong scan, reduction or index in the kernels. Skipped without a C++20 g++.
 */
class CodebookKernelsEmulationTest {
    @TempDir
    Path dir;

    @Test
    void theKernelsComputeWhatTheStepsExpect() throws Exception {
        Path probe = Files.writeString(dir.resolve("probe.cpp"), "#include <barrier>\nint main() { return 0; }\n");
        Assumptions.assumeTrue(compiles(List.of("g++", "-std=c++20", "-pthread", probe.toString(), "-o",
                dir.resolve("probe").toString())), "no g++ with C++20 <barrier>: kernel emulation skipped");
        Path emulation = Path.of(getClass().getResource("/emulation/cuda_emulation.h").toURI()).getParent();
        Path kernels = Path.of(getClass().getResource("/dev/aorta/workloads/kernels/codebook.cu").toURI()).getParent();
        Path binary = dir.resolve("codebook_kernels_check");
        Process compile = new ProcessBuilder("g++", "-std=c++20", "-O1", "-pthread", "-include",
                emulation.resolve("cuda_emulation.h").toString(), "-I", kernels.toString(), "-x", "c++",
                emulation.resolve("codebook_kernels_check.cpp").toString(), "-o", binary.toString())
                .redirectErrorStream(true).start();
        String compileLog = new String(compile.getInputStream().readAllBytes());
        assertThat(compile.waitFor(180, TimeUnit.SECONDS)).isTrue();
        assertThat(compile.exitValue()).as(compileLog).isZero();

        Process run = new ProcessBuilder(binary.toString()).redirectErrorStream(true).start();
        String output = new String(run.getInputStream().readAllBytes());
        assertThat(run.waitFor(180, TimeUnit.SECONDS)).isTrue();
        assertThat(output.strip()).isEqualTo("OK");
        assertThat(run.exitValue()).isZero();
    }

    private static boolean compiles(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }
}
