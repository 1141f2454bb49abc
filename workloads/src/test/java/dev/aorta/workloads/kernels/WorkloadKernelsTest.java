package dev.aorta.workloads.kernels;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The model module's jar, on the same class path, has its own kernels/elementwise.cu: the workloads' sources must be
 * found under their package path whatever the class-path order (an H100 run picked the model's file and failed
 * with "no kernel vec_add").
 */
class WorkloadKernelsTest {

    @Test
    void theWorkloadsElementwiseSourceIsTheirsNotTheModelModules() {
        assertThat(WorkloadKernels.has("elementwise.cu")).isTrue();
        assertThat(WorkloadKernels.source("elementwise.cu")).contains("vec_add").contains("vec_scale");
        assertThat(getClass().getResource("/kernels/elementwise.cu")).as("the model module's file is on the class path")
                .isNotNull();
    }

    @Test
    void aMissingSourceIsNamed() {
        assertThat(WorkloadKernels.has("nope.cu")).isFalse();
        assertThatThrownBy(() -> WorkloadKernels.source("nope.cu")).hasMessageContaining("nope.cu");
    }
}
