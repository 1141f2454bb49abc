package dev.aorta.plugins.javacpp;

import dev.aorta.core.event.ApiCall;
import dev.aorta.core.jsonl.EventJsonlReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plugin as users run it: a child JVM with {@code -javaagent:} the shaded agent and this plugin's jar
 * on the class path, running a JavaCPP-shaped application whose native methods the agent wraps.
 */
class JavaCppPluginIT {
    static final Path AGENT = Path.of(System.getProperty("aorta.agent.jar"));
    static final Path PLUGIN = Path.of(System.getProperty("aorta.plugin.jar"));

    record Run(int exit, String out, String err) {
    }

    static Run run(String agentArgs, Path dir) throws Exception {
        return run(AGENT, agentArgs, dir, String.join(File.pathSeparator, PLUGIN.toString(), appClassPath()));
    }

    /** The application's own class path: the JavaCPP-shaped classes and the marker API. */
    static String appClassPath() throws Exception {
        return String.join(File.pathSeparator, location(JavaCppPluginIT.class), location(dev.aorta.api.Aorta.class));
    }

    static Run run(Path agent, String agentArgs, Path dir, String cp) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-javaagent:" + agent.toAbsolutePath() + "=output=" + dir + (agentArgs.isEmpty() ? "" : "," + agentArgs),
                "-cp", cp, "example.javacpp.JavaCppApp"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), out, err);
    }

    static String location(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    static List<ApiCall> calls(Path dir) throws Exception {
        List<ApiCall> calls = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(dir.resolve("rank_0_activity.jsonl"))) {
            new EventJsonlReader().read(in, new EventJsonlReader.Sink() {
                @Override
                public void api(ApiCall c) {
                    calls.add(c);
                }
            });
        }
        return calls;
    }

    @Test
    void nativeJavaCppMethodsAreWrappedAtLoadTime_andEveryCallIsRecorded(@TempDir Path dir) throws Exception {
        assertThat(AGENT).exists();
        assertThat(PLUGIN).exists();
        Run run = run("", dir);

        assertThat(run.exit()).as(run.err()).isZero();
        // every call still reached its native (and failed there, as it must without a library)
        assertThat(run.out()).contains("RESULT unsatisfied=11");
        assertThat(run.err()).contains("libraries found: ").contains("javacpp-cuda");
        Map<String, ApiCall> byName = calls(dir).stream()
                .collect(Collectors.toMap(ApiCall::name, Function.identity(), (a, b) -> a));
        assertThat(byName).containsOnlyKeys("cudaStreamCreateWithPriority", "cudaLaunchKernel", "cudaMemcpyAsync",
                "cudaMemsetAsync", "cudaEventRecord", "cudaStreamWaitEvent", "cudaGraphLaunch", "ncclAllReduce",
                "ncclAllGather", "cudaStreamSynchronize", "cudaDeviceSynchronize");
        assertThat(byName.values()).allSatisfy(c -> assertThat(c.result()).as(c.name() + " threw").isEqualTo(-1));
        assertThat(byName.get("cudaLaunchKernel").stream()).isEqualTo(0x5000L);
        assertThat(byName.get("cudaLaunchKernel").args()).containsEntry("shared_mem", 128L);
        assertThat(byName.get("cudaStreamCreateWithPriority").args()).containsEntry("priority", -2L);
        assertThat(byName.get("cudaMemcpyAsync").args()).containsEntry("bytes", 4096L).containsEntry("copy_kind", "HtoD")
                .containsEntry("dst", 0xD000L);
        assertThat(byName.get("cudaMemsetAsync").args()).containsEntry("bytes", 1024L);
        assertThat(byName.get("cudaStreamWaitEvent").stream()).isEqualTo(0x6000L);
        assertThat(byName.get("ncclAllReduce").args()).containsEntry("count", 1000L).containsEntry("dtype", "float32")
                .containsEntry("op", "sum").containsEntry("communicator", 0xC000L).containsEntry("bytes", 4000L);
        assertThat(byName.get("ncclAllGather").args()).containsEntry("count", 500L).doesNotContainKey("op");
    }

    @Test
    void thePluginJarInThePluginsFolderBesideTheAgentsLibIsEnabled_andTheClassPathStaysAsItWas(@TempDir Path dir)
            throws Exception {
        Path agent = Files.createDirectories(dir.resolve("dist/lib")).resolve("aorta-agent.jar");
        Files.copy(AGENT, agent);
        Path plugins = Files.createDirectories(dir.resolve("dist/plugins"));
        Files.copy(PLUGIN, plugins.resolve("aorta-plugin-javacpp-cuda.jar"));
        Files.writeString(plugins.resolve("broken.jar"), "not a zip file");
        Path out = Files.createDirectories(dir.resolve("out"));

        Run run = run(agent, "", out, appClassPath());

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("RESULT unsatisfied=11").contains("CLASS_PATH " + appClassPath() + "\n");
        assertThat(run.err()).containsPattern("libraries found: [^;]*javacpp-cuda");
        assertThat(run.err().lines().filter(l -> l.contains("broken.jar")).toList()).containsExactly("[aorta] ERROR: plugin"
                + " jar " + plugins.resolve("broken.jar") + " skipped: it is not a readable jar (zip END header not found)");
        assertThat(calls(out)).extracting(ApiCall::name).contains("cudaLaunchKernel", "cudaMemcpyAsync", "ncclAllReduce");
    }

    @Test
    void withoutThePluginJarTheNativesAreLeftAlone(@TempDir Path dir) throws Exception {
        String cp = String.join(File.pathSeparator, location(JavaCppPluginIT.class), location(dev.aorta.api.Aorta.class));
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-javaagent:" + AGENT.toAbsolutePath() + "=output=" + dir, "-cp", cp, "example.javacpp.JavaCppApp").start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.getErrorStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("RESULT unsatisfied=11");
        assertThat(calls(dir)).isEmpty();
    }
}
