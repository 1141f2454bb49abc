package dev.aorta.model;

import dev.aorta.gpu.nvrtc.Nvrtc;
import dev.aorta.testing.NvccCompiler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every kernel source (its shared headers inlined) compiles for Hopper, so a syntax error shows up before a device
 * run: with NVRTC where it is installed (it needs no GPU, only libnvrtc), else with the toolkit's nvcc, else skipped
 * with the reason.
 */
class KernelSourcesCompileTest {
    static final java.util.List<String> SOURCES = Kernels.SOURCES;

    @ParameterizedTest
    @FieldSource("SOURCES")
    void compilesForSm90(String file) throws Exception {
        byte[] cubin = NvccCompiler.compileOrSkip(Kernels.source(file), file, "sm_90", () -> Nvrtc.get()::compile);
        assertThat(cubin).isNotEmpty();
    }

    @Test
    void aKernelWithATypeErrorFailsTheCheckNamingItsFile() {
        String broken = "extern \"C\" __global__ void k(float* x) { x[0] = undeclared_name; }";
        assertThatThrownBy(() -> NvccCompiler.compileOrSkip(broken, "broken.cu", "sm_90", () -> Nvrtc.get()::compile))
                .hasMessageContaining("broken.cu").hasMessageContaining("undeclared_name");
    }

    @Test
    void sharedHeadersAreInlinedBecauseNvrtcIsGivenNoIncludePath() {
        String source = Kernels.source("adamw.cu");
        assertThat(source).doesNotContain("#include").contains("cvt.rn.bf16.f32").contains("adamw_step");
        assertThat(Kernels.source("convert.cu")).doesNotContain("#include").contains("cast_f32_to_16");
    }
}
