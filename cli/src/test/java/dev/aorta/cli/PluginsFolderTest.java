package dev.aorta.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.aorta.analyzer.metrics.Analysis;
import dev.aorta.analyzer.read.TraceReader;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.testing.PluginJar;
import dev.aorta.workloads.spi.Workload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A third-party plugin jar dropped into the installation's {@code plugins/} folder ({@code $aorta.home/plugins}) adds
 * its workload to {@code aorta list}, its trace format to {@code aorta analyze} and its analysis to the output of
 * {@code aorta analyze} and {@code aorta report}; nothing else needs configuring.
 */
class PluginsFolderTest {
    private static final String WORKLOAD = """
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
                public Throughput throughput(int iterations, double totalTimeMs) { return new Throughput(0, "x"); }
                public void cleanup() { }
            }
            """;

    /** A made-up format: a header line, then "step N START END" and "kernel STREAM START END NAME" lines (ns). */
    private static final String READER = """
            package com.example.plugin;

            import dev.aorta.analyzer.read.TraceReader;
            import dev.aorta.analyzer.read.TraceSource;
            import dev.aorta.analyzer.trace.TraceSink;
            import dev.aorta.core.event.*;
            import java.io.*;
            import java.nio.charset.StandardCharsets;

            public final class ToyTraceReader implements TraceReader {
                public String format() { return "toytrace"; }
                public boolean accepts(TraceSource source) { return source.firstLine().equals("TOYTRACE 1"); }
                public void read(TraceSource source, TraceSink sink) throws IOException {
                    try (BufferedReader in = new BufferedReader(new InputStreamReader(source.open(), StandardCharsets.UTF_8))) {
                        in.readLine();
                        for (String line = in.readLine(); line != null; line = in.readLine()) {
                            String[] f = line.trim().split(" ");
                            if (f[0].equals("step")) {
                                sink.marker(new Marker(Marker.Kind.ITERATION, "step " + f[1], TraceSink.UNKNOWN_RANK,
                                        Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), ClockDomain.CUPTI));
                            } else if (f[0].equals("kernel")) {
                                sink.activity(new DeviceActivity(ActivityKind.KERNEL, f[4], TraceSink.UNKNOWN_RANK, 0,
                                        Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), 0,
                                        DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 0,
                                        ClockDomain.CUPTI));
                            }
                        }
                    }
                }
            }
            """;

    /** Kernels that start in the window, and the longest of them. */
    private static final String ANALYSIS = """
            package com.example.plugin;

            import dev.aorta.analyzer.clock.RankTimeline;
            import dev.aorta.analyzer.metrics.Analysis;
            import dev.aorta.analyzer.metrics.Window;
            import dev.aorta.core.event.*;
            import java.util.List;

            public final class KernelStats implements Analysis {
                public String name() { return "kernel_stats"; }
                public List<Value> measure(RankTimeline timeline, Window window) {
                    long kernels = 0;
                    long longest = 0;
                    for (DeviceActivity a : timeline.activities()) {
                        if (a.kind() == ActivityKind.KERNEL && a.startNs() >= window.startNs() && a.startNs() < window.endNs()) {
                            kernels++;
                            longest = Math.max(longest, a.durationNs());
                        }
                    }
                    return List.of(new Value("kernels", kernels), new Value("longest_kernel_ms", longest / 1e6));
                }
            }
            """;

    private static final String FAILING_ANALYSIS = """
            package com.example.plugin;

            import dev.aorta.analyzer.clock.RankTimeline;
            import dev.aorta.analyzer.metrics.Analysis;
            import dev.aorta.analyzer.metrics.Window;
            import java.util.List;

            public final class FailingAnalysis implements Analysis {
                public String name() { return "failing_analysis"; }
                public List<Value> measure(RankTimeline timeline, Window window) {
                    throw new IllegalStateException("cannot measure " + window.label());
                }
            }
            """;

    /** Two iterations: step 1 with kernels of 2 ms and 1 ms, step 2 with one of 3 ms. */
    private static final String TOY_TRACE = """
            TOYTRACE 1
            step 1 0 10000000
            kernel 7 1000000 3000000 gemm
            kernel 7 4000000 5000000 relu
            step 2 10000000 20000000
            kernel 7 11000000 14000000 gemm
            """;

    @TempDir
    Path dir;
    private String previousHome;

    @BeforeEach
    void installPlugins() throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("home/plugins"));
        new PluginJar()
                .source("com.example.plugin.ExternalWorkload", WORKLOAD)
                .source("com.example.plugin.ToyTraceReader", READER)
                .source("com.example.plugin.KernelStats", ANALYSIS)
                .source("com.example.plugin.FailingAnalysis", FAILING_ANALYSIS)
                .service(Workload.class.getName(), "com.example.plugin.ExternalWorkload")
                .service(TraceReader.class.getName(), "com.example.plugin.ToyTraceReader")
                .service(Analysis.class.getName(), "com.example.plugin.KernelStats")
                .service(Analysis.class.getName(), "com.example.plugin.FailingAnalysis")
                .against(Workload.class, Analysis.class, DeviceActivity.class)
                .writeTo(plugins.resolve("example-plugin.jar"), dir.resolve("build"));
        // a jar whose services file names a class it lacks (say, a stale build)
        new PluginJar().service(Analysis.class.getName(), "com.example.stale.Gone")
                .writeTo(plugins.resolve("stale-plugin.jar"), dir.resolve("build-stale"));
        Files.writeString(plugins.resolve("broken.jar"), "not a zip file");
        Files.writeString(plugins.resolve("README.txt"), "not a jar, not a plugin");
        Files.writeString(Files.createDirectories(dir.resolve("run-a")).resolve("trace.toy"), TOY_TRACE);
        Files.writeString(Files.createDirectories(dir.resolve("run-b")).resolve("trace.toy"),
                TOY_TRACE.replace("kernel 7 11000000 14000000 gemm", "kernel 7 11000000 12000000 gemm"));
        previousHome = System.getProperty("aorta.home");
        System.setProperty("aorta.home", dir.resolve("home").toString());
    }

    @AfterEach
    void restoreHome() {
        if (previousHome == null) {
            System.clearProperty("aorta.home");
        } else {
            System.setProperty("aorta.home", previousHome);
        }
    }

    @Test
    void aWorkloadInThePluginsFolderIsListed_andABrokenJarIsOneWarning() {
        CliRunner.Outcome list = CliRunner.run(null, "list", "-c", "plugin");

        assertThat(list.exitCode()).as(list.err()).isZero();
        assertThat(list.out()).contains("external_plugin_workload").contains("from a plugin jar")
                .doesNotContain("tiny_kernel_stress");
        assertThat(list.err().lines().filter(l -> l.contains("broken.jar")).toList()).singleElement().asString()
                .startsWith("aorta: warning: plugin jar ").endsWith("broken.jar skipped: it is not a readable jar"
                        + " (zip END header not found)");
        assertThat(list.err()).doesNotContain("README.txt");
    }

    @Test
    void aTraceFormatFromAPluginIsRead_andAnAnalysisFromAPluginIsPrintedPerWindow() {
        CliRunner.Outcome text = CliRunner.run(null, "analyze", dir.resolve("run-a/trace.toy").toString());

        assertThat(text.exitCode()).as(text.err()).isZero();
        assertThat(text.out()).contains("rank 0  step 1  [trace.toy]")
                .contains("  kernel_stats: kernels 2  longest_kernel_ms 2\n")
                .contains("  kernel_stats: kernels 1  longest_kernel_ms 3\n")
                .doesNotContain("failing_analysis:");
        assertThat(text.err()).contains("aorta analyze: warning: analysis failing_analysis failed on rank 0, step 1"
                + " (java.lang.IllegalStateException: cannot measure step 1); its values are missing for that window")
                .contains("aorta analyze: warning: plugin Analysis skipped: Provider com.example.stale.Gone not found");
    }

    @Test
    void anAnalysisFromAPluginIsInEveryJsonObject() throws Exception {
        CliRunner.Outcome json = CliRunner.run(null, "analyze", "--format", "json",
                dir.resolve("run-a/trace.toy").toString());

        assertThat(json.exitCode()).as(json.err()).isZero();
        List<JsonNode> lines = new ArrayList<>();
        for (String line : json.out().strip().split("\n")) {
            lines.add(new ObjectMapper().readTree(line));
        }
        assertThat(lines).extracting(l -> l.get("window").asText()).containsExactly("step 1", "step 2");
        assertThat(lines.get(0).at("/analyses/kernel_stats/kernels").asLong()).isEqualTo(2);
        assertThat(lines.get(0).at("/analyses/kernel_stats/longest_kernel_ms").asDouble()).isEqualTo(2.0);
        assertThat(lines.get(1).at("/analyses/kernel_stats/kernels").asLong()).isEqualTo(1);
        assertThat(lines.get(1).at("/analyses/kernel_stats/longest_kernel_ms").asDouble()).isEqualTo(3.0);
        assertThat(lines.get(0).get("analyses").has("failing_analysis")).isFalse();
    }

    @Test
    void anAnalysisFromAPluginIsAggregatedInTheReportSummaryAndHtml() throws Exception {
        Path out = dir.resolve("report");
        CliRunner.Outcome report = CliRunner.run(null, "report", "--log-dir", dir.resolve("run-a").toString(),
                "--label", "a", "--log-dir", dir.resolve("run-b").toString(), "--label", "b", "-o", out.toString());

        assertThat(report.exitCode()).as(report.err()).isZero();
        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        JsonNode a = summary.at("/labels/a/analyses/kernel_stats");
        assertThat(a.at("/kernels/count").asInt()).isEqualTo(2);
        assertThat(a.at("/kernels/mean").asDouble()).isEqualTo(1.5);
        assertThat(a.at("/longest_kernel_ms/max").asDouble()).isEqualTo(3.0);
        assertThat(summary.at("/labels/b/analyses/kernel_stats/longest_kernel_ms/mean").asDouble()).isEqualTo(1.5);
        assertThat(Files.readString(out.resolve("report.html"))).contains("<h3>Analysis: kernel_stats</h3>")
                .contains("<tr><td>longest_kernel_ms</td><td>2</td><td>2.500</td>");
    }

    @Test
    void withoutThePluginsFolderTheFormatIsUnknown() {
        System.setProperty("aorta.home", dir.resolve("elsewhere").toString());

        CliRunner.Outcome run = CliRunner.run(null, "analyze", dir.resolve("run-a/trace.toy").toString());

        assertThat(run.exitCode()).isNotZero();
        assertThat(run.err()).contains("trace.toy: unknown trace format").doesNotContain("toytrace");
    }

    @Test
    void aortaPluginsNamesMoreFoldersOrJars_aMissingOneIsOneLine() {
        Path jar = dir.resolve("home/plugins/example-plugin.jar");
        List<String> problems = new ArrayList<>();

        List<Path> jars = PluginFolders.of(null, jar + File.pathSeparator + dir.resolve("no-such-folder"))
                .jars(problems::add);

        assertThat(jars).containsExactly(jar);
        assertThat(problems).containsExactly("AORTA_PLUGINS entry " + dir.resolve("no-such-folder")
                + " skipped: no such folder or jar");
    }
}
