package dev.aorta.model;

import dev.aorta.gpu.nvrtc.Nvrtc;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every kernel source compiles for Hopper with NVRTC, which needs no GPU (only libnvrtc), so a syntax error
 * shows up before a device run; skipped with the reason where NVRTC is not installed.
 */
class KernelSourcesCompileTest {
    static final java.util.List<String> SOURCES = Kernels.SOURCES;

    @ParameterizedTest
    @FieldSource("SOURCES")
    void compilesForSm90(String file) {
        Nvrtc nvrtc;
        try {
            nvrtc = Nvrtc.get();
        } catch (RuntimeException | LinkageError e) {
            Assumptions.abort("NVRTC is not available here: " + e.getMessage());
            return;
        }
        byte[] cubin = nvrtc.compile(Kernels.source(file), file, "sm_90");
        assertThat(cubin).isNotEmpty();
    }
}
