package dev.aorta.cli;

import dev.aorta.core.event.DeviceActivity;
import dev.aorta.workloads.harness.WorkloadRegistry;
import dev.aorta.workloads.spi.Workload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/** A workload in its own jar, listed in its own META-INF/services, is found like a bundled one. */
class ExternalWorkloadJarTest {
    private static final String SOURCE = """
            package com.example.plugin;

            import dev.aorta.workloads.spi.*;

            public final class ExternalWorkload implements Workload {
                public String name() { return "external_plugin_workload"; }
                public String description() { return "from a plugin jar"; }
                public String category() { return "plugin"; }
                public Priority priority() { return Priority.P2; }
                public StreamRange streamRange() { return new StreamRange(1, 2); }
                public int recommendedStreams() { return 1; }
                public SwitchLatencySensitivity switchLatencySensitivity() { return SwitchLatencySensitivity.MEDIUM; }
                public void setup(WorkloadContext context) { }
                public void runIteration(int iteration) { }
                public long launchesPerIteration() { return 0; }
                public Throughput throughput(int iterations, double totalTimeMs) { return new Throughput(0, "x"); }
                public void cleanup() { }
            }
            """;

    @TempDir
    Path dir;

    @Test
    void aWorkloadFromAJarOnTheClassPathIsListed() throws Exception {
        Path jar = buildPluginJar();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()},
                Workload.class.getClassLoader())) {
            assertThat(new WorkloadRegistry(loader).all()).extracting(Workload::name)
                    .contains("external_plugin_workload", "tiny_kernel_stress");
            assertThat(new WorkloadRegistry(loader).create("external_plugin_workload").category()).isEqualTo("plugin");

            Thread thread = Thread.currentThread();
            ClassLoader previous = thread.getContextClassLoader();
            thread.setContextClassLoader(loader);
            try {
                String out = runCli("list", "-c", "plugin");
                assertThat(out).contains("external_plugin_workload").contains("from a plugin jar")
                        .doesNotContain("tiny_kernel_stress");
            } finally {
                thread.setContextClassLoader(previous);
            }
        }
        assertThat(WorkloadRegistry.onClassPath().all()).extracting(Workload::name)
                .doesNotContain("external_plugin_workload");
    }

    private static String runCli(String... args) throws Exception {
        var out = new ByteArrayOutputStream();
        var old = System.out;
        System.setOut(new java.io.PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            AortaCli.run(args);
        } finally {
            System.setOut(old);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private Path buildPluginJar() throws Exception {
        Path src = dir.resolve("src/com/example/plugin/ExternalWorkload.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, SOURCE);
        Path classes = dir.resolve("classes");
        Files.createDirectories(classes);
        String classPath = location(Workload.class) + java.io.File.pathSeparator + location(DeviceActivity.class);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        OutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(null, null, errors, "-cp", classPath, "-d", classes.toString(), src.toString());
        assertThat(rc).as(errors.toString()).isZero();
        Path jar = dir.resolve("plugin.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("META-INF/services/" + Workload.class.getName()));
            out.write("com.example.plugin.ExternalWorkload\n".getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
            out.putNextEntry(new JarEntry("com/example/plugin/ExternalWorkload.class"));
            out.write(Files.readAllBytes(classes.resolve("com/example/plugin/ExternalWorkload.class")));
            out.closeEntry();
        }
        return jar;
    }

    private static String location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
