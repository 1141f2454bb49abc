package dev.aorta.agent;

import dev.aorta.agent.spi.InterceptionPlugin;
import dev.aorta.core.spi.ServiceProviders;
import dev.aorta.testing.PluginJar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/** The agent takes its plugins from {@code <dist>/plugins}, beside the {@code lib/} folder that holds the agent jar. */
class PluginFolderTest {
    private static final String PLUGIN = """
            package com.example.agentplugin;

            import dev.aorta.agent.spi.Interception;
            import dev.aorta.agent.spi.InterceptionPlugin;
            import java.util.List;

            public final class ExampleLibPlugin implements InterceptionPlugin {
                public String name() { return "example-lib"; }
                public String probeClass() { return "com.example.lib.Gpu"; }
                public List<Interception> interceptions() { return List.of(); }
            }
            """;

    @TempDir
    Path dir;

    @Test
    void theFolderIsPluginsBesideTheAgentJarsFolder() throws Exception {
        Path agent = Files.createDirectories(dir.resolve("dist/lib")).resolve("aorta-agent.jar");
        Files.writeString(agent, "a jar");

        assertThat(PluginFolder.besideAgentJar(agent.toUri().toURL())).isEqualTo(dir.resolve("dist/plugins"));
        assertThat(PluginFolder.besideAgentJar(dir.resolve("dist/lib").toUri().toURL()))
                .as("an agent running from a classes folder has no plugins folder").isNull();
        assertThat(PluginFolder.besideAgentJar(null)).isNull();
    }

    @Test
    void onlyJarsDeclaringInterceptionPluginsAreTaken_aBrokenJarIsOneLine() throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("dist/plugins"));
        Path agentPlugin = new PluginJar().source("com.example.agentplugin.ExampleLibPlugin", PLUGIN)
                .service(InterceptionPlugin.class.getName(), "com.example.agentplugin.ExampleLibPlugin")
                .against(InterceptionPlugin.class)
                .writeTo(plugins.resolve("example-lib-plugin.jar"), dir.resolve("build"));
        new PluginJar().service("dev.aorta.analyzer.metrics.Analysis", "com.example.cli.SomeAnalysis")
                .writeTo(plugins.resolve("cli-only-plugin.jar"), dir.resolve("build-cli"));
        Files.writeString(plugins.resolve("broken.jar"), "not a zip file");
        Files.writeString(plugins.resolve("notes.txt"), "not a jar");
        List<String> problems = new ArrayList<>();

        List<JarFile> jars = PluginFolder.interceptionJars(plugins, problems::add);

        assertThat(jars).extracting(JarFile::getName).containsExactly(agentPlugin.toString());
        assertThat(problems).containsExactly("plugin jar " + plugins.resolve("broken.jar")
                + " skipped: it is not a readable jar (zip END header not found)");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {agentPlugin.toUri().toURL()},
                InterceptionPlugin.class.getClassLoader())) {
            assertThat(ServiceProviders.load(InterceptionPlugin.class, loader, problems::add))
                    .extracting(InterceptionPlugin::name).contains("example-lib");
        }
        for (JarFile jar : jars) {
            jar.close();
        }
    }

    @Test
    void aMissingFolderHasNoPlugins() {
        List<String> problems = new ArrayList<>();

        assertThat(PluginFolder.interceptionJars(dir.resolve("no-such-folder"), problems::add)).isEmpty();
        assertThat(PluginFolder.interceptionJars(null, problems::add)).isEmpty();
        assertThat(problems).isEmpty();
    }
}
