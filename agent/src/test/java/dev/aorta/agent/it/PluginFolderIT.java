package dev.aorta.agent.it;

import dev.aorta.core.event.ApiCall;
import dev.aorta.core.jsonl.EventJsonlReader;
import dev.aorta.testing.PluginJar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * A third-party interception plugin built the plain way (javac against the shipped, shaded agent jar) and dropped
 * into {@code plugins/} beside the agent's {@code lib/} instruments an application that knows nothing about it.
 */
class PluginFolderIT {
    private static final String LIBRARY = """
            package com.example.toylib;

            public final class ToyGpu {
                public static int sync(long stream) { return 0; }
            }
            """;
    private static final String APP = """
            package com.example.toyapp;

            public final class ToyApp {
                public static void main(String[] args) {
                    com.example.toylib.ToyGpu.sync(0x77);
                    com.example.toylib.ToyGpu.sync(0x78);
                    dev.aorta.api.Aorta.finish();
                    System.out.println("CLASS_PATH " + System.getProperty("java.class.path"));
                }
            }
            """;
    private static final String PLUGIN = """
            package com.example.agentplugin;

            import dev.aorta.agent.spi.CallKind;
            import dev.aorta.agent.spi.Interception;
            import dev.aorta.agent.spi.InterceptionPlugin;
            import java.util.List;

            public final class ToyLibPlugin implements InterceptionPlugin {
                public String name() { return "toy-lib"; }
                public String probeClass() { return "com.example.toylib.ToyGpu"; }
                public List<Interception> interceptions() {
                    return List.of(Interception.of("com.example.toylib.ToyGpu", "sync", 1, CallKind.SYNC, ToySyncAdvice.class));
                }
            }
            """;
    /** The shipped agent relocates ByteBuddy: its advice annotations live under dev.aorta.agent.shaded. */
    private static final String ADVICE = """
            package com.example.agentplugin;

            import dev.aorta.agent.advice.CallId;
            import dev.aorta.agent.recorder.Recorder;
            import dev.aorta.agent.shaded.bytebuddy.asm.Advice;

            public final class ToySyncAdvice {
                private ToySyncAdvice() { }

                @Advice.OnMethodEnter(suppress = Throwable.class)
                static long enter() { return Recorder.now(); }

                @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
                static void exit(@CallId int id, @Advice.Enter long start, @Advice.Return int result,
                                 @Advice.Argument(0) long stream) {
                    Recorder.record(id, start, stream, result);
                }
            }
            """;

    @TempDir
    Path dir;

    @Test
    void aPluginInThePluginsFolderInstrumentsTheApplication_whoseClassPathStaysAsItWas() throws Exception {
        Path agent = Files.createDirectories(dir.resolve("dist/lib")).resolve("aorta-agent.jar");
        Files.copy(ChildJvm.AGENT_JAR, agent);
        Path app = new PluginJar().source("com.example.toylib.ToyGpu", LIBRARY).source("com.example.toyapp.ToyApp", APP)
                .against(dev.aorta.api.Aorta.class).writeTo(dir.resolve("app/app.jar"), dir.resolve("build-app"));
        new PluginJar().source("com.example.agentplugin.ToyLibPlugin", PLUGIN)
                .source("com.example.agentplugin.ToySyncAdvice", ADVICE)
                .service("dev.aorta.agent.spi.InterceptionPlugin", "com.example.agentplugin.ToyLibPlugin")
                .against(agent).writeTo(dir.resolve("dist/plugins/toy-lib-plugin.jar"), dir.resolve("build-plugin"));
        Path out = Files.createDirectories(dir.resolve("out"));
        String classPath = app + File.pathSeparator + location(dev.aorta.api.Aorta.class);

        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-javaagent:" + agent + "=output=" + out, "-cp", classPath, "com.example.toyapp.ToyApp").start();
        String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(p.exitValue()).as(stderr).isZero();
        assertThat(stderr).containsPattern("libraries found: [^;]*toy-lib");
        assertThat(stdout).contains("CLASS_PATH " + classPath + "\n");
        assertThat(calls(out)).extracting(ApiCall::name, ApiCall::stream)
                .containsExactly(tuple("sync", 0x77L), tuple("sync", 0x78L));
    }

    private static List<ApiCall> calls(Path out) throws Exception {
        List<ApiCall> calls = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(out.resolve("rank_0_activity.jsonl"))) {
            new EventJsonlReader().read(in, new EventJsonlReader.Sink() {
                @Override
                public void api(ApiCall c) {
                    calls.add(c);
                }
            });
        }
        return calls;
    }

    /** Where a class's jar or classes folder is. */
    private static String location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
