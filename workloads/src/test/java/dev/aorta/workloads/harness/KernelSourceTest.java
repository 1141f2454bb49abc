package dev.aorta.workloads.harness;

import dev.aorta.workloads.kernels.WorkloadKernels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Kernel sources come from the class path the CLI runs with, which includes the jars of the plugins folder. */
class KernelSourceTest {

    @Test
    void aBuiltInKernelIsOneOfTheWorkloadsOwnNotAnotherJarsOfTheSameName() {
        assertThat(WorkloadKernels.has("elementwise.cu")).isTrue();
        assertThat(WorkloadKernels.source("elementwise.cu")).contains("__global__");
    }

    @Test
    void aPluginsKernelIsFoundInTheCommandsClassLoader(@TempDir Path dir) throws Exception {
        Files.writeString(Files.createDirectories(dir.resolve("kernels")).resolve("from_plugin.cu"),
                "extern \"C\" __global__ void fromPlugin() {}\n");
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        try (URLClassLoader plugins = new URLClassLoader(new URL[] {dir.toUri().toURL()}, previous)) {
            thread.setContextClassLoader(plugins);
            assertThat(HarnessContext.readKernelSource("from_plugin.cu")).contains("fromPlugin");
        } finally {
            thread.setContextClassLoader(previous);
        }
        assertThatThrownBy(() -> HarnessContext.readKernelSource("from_plugin.cu"))
                .hasMessage("no kernel source kernels/from_plugin.cu on the class path");
    }
}
