package dev.aorta.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.aorta.workloads.session.SimulatedGpuSession;
import dev.aorta.core.metric.SampleStats;
import dev.aorta.workloads.result.ResultJson;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class CompareCommandTest {
    @TempDir
    Path dir;
    private Path base;

    @BeforeEach
    void aRealResultFile() throws Exception {
        base = dir.resolve("base.json");
        CliRunner.Outcome o = CliRunner.run(d -> new SimulatedGpuSession(), "run", "tiny_kernel_stress", "-s", "2",
                "-i", "60", "-w", "1", "-p", "ops_per_stream=2", "-o", base.toString());
        assertThat(o.exitCode()).as(o.err()).isZero();
        // the simulated device is deterministic; give the iterations a realistic 2% jitter
        ObjectNode r = (ObjectNode) ResultJson.read(base);
        Random random = new Random(7);
        ArrayNode times = (ArrayNode) r.path("iteration_times_ms");
        for (int i = 0; i < times.size(); i++) {
            times.set(i, times.get(i).asDouble() * (1 + 0.02 * random.nextGaussian()));
        }
        writeWithLatency(r, base, 1);
    }

    /** Scales every iteration time by {@code factor} and rewrites latency and throughput to match. */
    private static Path writeWithLatency(ObjectNode r, Path file, double factor) throws Exception {
        ArrayNode times = (ArrayNode) r.path("iteration_times_ms");
        double[] v = new double[times.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = times.get(i).asDouble() * factor;
            times.set(i, v[i]);
        }
        r.set("latency_ms", ResultJson.stats(SampleStats.of(v)));
        r.put("throughput", r.path("throughput").asDouble() / factor);
        ResultJson.write(file, r);
        return file;
    }

    private Path scaledCopy(String name, double factor) throws Exception {
        return writeWithLatency((ObjectNode) ResultJson.read(base), dir.resolve(name), factor);
    }

    @Test
    void aDoubledP99IsARegressionWithABootstrapIntervalAndExitOne() throws Exception {
        Path slow = scaledCopy("slow.json", 2);
        CliRunner.Outcome o = CliRunner.run(null, "compare", "--baseline", base.toString(), "--test", slow.toString());
        assertThat(o.exitCode()).as(o.out() + o.err()).isEqualTo(1);
        assertThat(o.out()).containsPattern("latency p99 .* \\+100\\.0% .*\\[\\+\\d+\\.\\d%, \\+\\d+\\.\\d%\\]  regression")
                .containsPattern("throughput .* -50\\.0% .* regression")
                .contains("REGRESSION");
    }

    @Test
    void aFileComparedWithItselfHasNoRegression() {
        CliRunner.Outcome o = CliRunner.run(null, "compare", "--baseline", base.toString(), "--test", base.toString());
        assertThat(o.exitCode()).isZero();
        assertThat(o.out()).contains("within threshold").contains("no regression");
    }

    @Test
    void aFasterTestIsAnImprovementNotARegression() throws Exception {
        Path fast = scaledCopy("fast.json", 0.5);
        CliRunner.Outcome o = CliRunner.run(null, "compare", "--baseline", base.toString(), "--test", fast.toString());
        assertThat(o.exitCode()).isZero();
        assertThat(o.out()).contains("improvement");
    }

    @Test
    void aSmallShiftInsideTheNoiseIsNotSignificantEvenPastTheThreshold() throws Exception {
        Path slightly = scaledCopy("slightly.json", 1.002);
        CliRunner.Outcome o = CliRunner.run(null, "compare", "--baseline", base.toString(), "--test",
                slightly.toString(), "--threshold", "0.001");
        assertThat(o.out()).contains("not significant");
        assertThat(o.exitCode()).isZero();
    }

    @Test
    void withoutIterationSamplesTheThresholdAloneDecidesAndTheOutputSaysSo() throws Exception {
        ObjectNode aorta = (ObjectNode) ResultJson.read(scaledCopy("aorta.json", 1.5));
        aorta.remove("iteration_times_ms");
        aorta.remove("schema");
        Path aortaFile = dir.resolve("aorta-like.json");
        ResultJson.write(aortaFile, aorta);
        CliRunner.Outcome o = CliRunner.run(null, "compare", "--baseline", base.toString(), "--test",
                aortaFile.toString());
        assertThat(o.exitCode()).isEqualTo(1);
        assertThat(o.out()).contains("no iteration samples in " + aortaFile + ": judged by the threshold alone")
                .contains("n/a");
    }

    @Test
    void sweepsArePairedByStreamCountNotByPosition() throws Exception {
        JsonNode run = ResultJson.read(base);
        ObjectNode one = run.deepCopy();
        one.put("stream_count", 1);
        ObjectNode two = run.deepCopy();
        two.put("stream_count", 2);
        ObjectNode twoSlow = (ObjectNode) ResultJson.read(scaledCopy("s.json", 2));
        twoSlow.put("stream_count", 2);
        Path baseSweep = sweep("bs.json", one, two);
        Path testSweep = sweep("ts.json", twoSlow, one.deepCopy());  // other order, and 2 streams got slower
        CliRunner.Outcome o = CliRunner.run(null, "compare", "--baseline", baseSweep.toString(), "--test",
                testSweep.toString());
        assertThat(o.exitCode()).isEqualTo(1);
        String streams1 = o.out().substring(o.out().indexOf("streams 1:"), o.out().indexOf("streams 2:"));
        assertThat(streams1).doesNotContain("regression");
        assertThat(o.out().substring(o.out().indexOf("streams 2:"))).contains("regression");
    }

    private Path sweep(String name, JsonNode... runs) throws Exception {
        ObjectNode s = ResultJson.MAPPER.createObjectNode();
        s.put("schema", ResultJson.SWEEP_SCHEMA);
        s.put("timestamp", "2026-01-01T00:00:00Z");
        s.put("workload", "tiny_kernel_stress");
        ArrayNode results = s.putArray("results");
        for (JsonNode r : runs) {
            results.add(r);
        }
        s.putObject("analysis");
        s.putObject("environment");
        Path file = dir.resolve(name);
        ResultJson.write(file, s);
        return file;
    }

    @Test
    void filesOfDifferentWorkloadsOrKindsOrThresholdsOutOfRangeAreClearErrors() throws Exception {
        ObjectNode other = (ObjectNode) ResultJson.read(base);
        other.put("workload_name", "hetero_kernels");
        Path otherFile = dir.resolve("other.json");
        ResultJson.write(otherFile, other);
        assertThat(CliRunner.run(null, "compare", "--baseline", base.toString(), "--test", otherFile.toString()).err())
                .contains("cannot compare results of different workloads");
        Path sweepFile = sweep("sw.json", ResultJson.read(base));
        CliRunner.Outcome kinds = CliRunner.run(null, "compare", "--baseline", base.toString(), "--test",
                sweepFile.toString());
        assertThat(kinds.exitCode()).isEqualTo(2);
        assertThat(kinds.err()).contains("cannot compare a single-run result").contains("with a sweep result");
        assertThat(CliRunner.run(null, "compare", "--baseline", base.toString(), "--test", base.toString(),
                "--threshold", "-1").err()).contains("--threshold must be a relative change > 0");
        ObjectNode future = (ObjectNode) ResultJson.read(base);
        future.put("schema", "aorta.run/9");
        Path futureFile = dir.resolve("future.json");
        ResultJson.write(futureFile, future);
        assertThat(CliRunner.run(null, "compare", "--baseline", base.toString(), "--test", futureFile.toString()).err())
                .contains("has schema 'aorta.run/9'");
        assertThat(CliRunner.run(null, "compare", "--baseline", "missing.json", "--test", base.toString()).err())
                .contains("--baseline missing.json: no such file");
    }
}
