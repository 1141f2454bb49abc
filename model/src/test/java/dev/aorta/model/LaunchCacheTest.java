package dev.aorta.model;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LaunchCacheTest {
    @Test
    void aLaunchIsFoundAgainUnderTheSameKernelGridBlockStreamAndParameterCount() {
        LaunchCache<String> cache = new LaunchCache<>();
        cache.put("adamw.cu", "zero_grads", 132, 1, 256, 0x10L, 4, "prepared");

        assertThat(cache.get("adamw.cu", "zero_grads", 132, 1, 256, 0x10L, 4)).isEqualTo("prepared");
        // names compare by value: a string built at run time finds the launch a literal prepared
        assertThat(cache.get(new StringBuilder("adamw").append(".cu").toString(), "zero_grads", 132, 1, 256, 0x10L,
                4)).isEqualTo("prepared");
    }

    @Test
    void anyDifferenceInWhatFixesALaunchIsAnotherLaunch() {
        LaunchCache<String> cache = new LaunchCache<>();
        cache.put("adamw.cu", "zero_grads", 132, 1, 256, 0x10L, 4, "prepared");

        assertThat(cache.get("elementwise.cu", "zero_grads", 132, 1, 256, 0x10L, 4)).isNull();
        assertThat(cache.get("adamw.cu", "grad_norm_finish", 132, 1, 256, 0x10L, 4)).isNull();
        assertThat(cache.get("adamw.cu", "zero_grads", 133, 1, 256, 0x10L, 4)).isNull();
        assertThat(cache.get("adamw.cu", "zero_grads", 132, 2, 256, 0x10L, 4)).isNull();
        assertThat(cache.get("adamw.cu", "zero_grads", 132, 1, 128, 0x10L, 4)).isNull();
        assertThat(cache.get("adamw.cu", "zero_grads", 132, 1, 256, 0x20L, 4)).isNull();
        assertThat(cache.get("adamw.cu", "zero_grads", 132, 1, 256, 0x10L, 5)).isNull();
        // the same name in two files is two kernels
        cache.put("elementwise.cu", "zero_grads", 132, 1, 256, 0x10L, 4, "other");
        assertThat(cache.size()).isEqualTo(2);
        assertThat(cache.get("adamw.cu", "zero_grads", 132, 1, 256, 0x10L, 4)).isEqualTo("prepared");
    }
}
