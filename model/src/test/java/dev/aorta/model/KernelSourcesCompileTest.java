package dev.aorta.model;

import dev.aorta.gpu.nvrtc.Nvrtc;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every kernel source (its shared headers inlined) compiles for Hopper with NVRTC, which needs no GPU (only libnvrtc), so a syntax error
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

    @Test
    void sharedHeadersAreInlinedBecauseNvrtcIsGivenNoIncludePath() {
        String source = Kernels.source("adamw.cu");
        assertThat(source).doesNotContain("#include").contains("cvt.rn.bf16.f32").contains("adamw_step");
        assertThat(Kernels.source("convert.cu")).doesNotContain("#include").contains("cast_f32_to_16");
    }
}
