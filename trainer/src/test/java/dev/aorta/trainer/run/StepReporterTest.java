package dev.aorta.trainer.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.trainer.config.ConfigLoader;
import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.log.RankLog;
import dev.aorta.trainer.schedule.StreamRole;
import dev.aorta.trainer.telemetry.TelemetrySample;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The per-step reporting both trainers share, with synthetic CUPTI records and a fake GPU telemetry source. */
class StepReporterTest {
    private static final long COMPUTE = 0x1000;
    private static final Map<Long, StreamRole> ROLES = Map.of(COMPUTE, StreamRole.COMPUTE);

    @TempDir
    Path out;

    private TrainerConfig config(String... more) {
        List<String> overrides = new java.util.ArrayList<>(List.of("training.output_dir=" + out,
                "training.log_interval=2", "training.max_steps=5"));
        overrides.addAll(List.of(more));
        return ConfigLoader.load(null, overrides);
    }

    private static List<DeviceActivity> records(int s) {
        long t = 1_000_000_000L + s * 10_000_000L;
        return List.of(a("Memset", t, t + 1_000), a("gemm", t + 10_000, t + 5_000_000),
                a("Memset", t + 6_000_000, t + 6_001_000));
    }

    private static DeviceActivity a(String name, long start, long end) {
        return new DeviceActivity(name.equals("gemm") ? ActivityKind.KERNEL : ActivityKind.MEMSET, name, 0, 0,
                COMPUTE, start, end, 1, DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, null, null, 0,
                ClockDomain.CUPTI);
    }

    private static String text(ByteArrayOutputStream b) {
        return b.toString(StandardCharsets.UTF_8);
    }

    @Test
    void rankZeroPrintsEveryLogIntervalAndTheLastStepAndEveryRankLogsThem() throws IOException, InterruptedException {
        TrainerConfig cfg = config("telemetry.nvml=true", "telemetry.interval_ms=1", "profiling.enabled=true");
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        // the sampler's single thread stores a sample before it reads the next: after two reads one is stored
        CountDownLatch sampled = new CountDownLatch(2);
        try (RankLog log = RankLog.open(out, 0, cfg.logging().level());
             StepReporter r = new StepReporter(cfg, 0, 1, 5, 5, false, 0, ROLES,
                     new PrintStream(console, true, StandardCharsets.UTF_8), log, warn -> () -> {
                         sampled.countDown();
                         return new TelemetrySample(System.nanoTime(), 1980, 2619, 400, 50, 99, 30, 12, 34);
                     })) {
            assertThat(sampled.await(20, TimeUnit.SECONDS)).isTrue();
            for (int s = 0; s < 5; s++) {
                long t0 = System.nanoTime();
                r.report(s, 0.5, 1.0, 3e-4, true, records(s), t0, t0 + 1_000_000);
            }
        }
        assertThat(text(console).lines().map(l -> l.substring(0, l.indexOf("  "))))
                .containsExactly("step 0/5", "step 2/5", "step 4/5");
        assertThat(Files.readAllLines(out.resolve("rank0.log"))).filteredOn(l -> l.contains(" INFO rank 0: step "))
                .hasSize(3);
        List<String> lines = Files.readAllLines(out.resolve("rank_00_metrics.jsonl"));
        assertThat(lines).hasSize(5);
        JsonNode last = new ObjectMapper().readTree(lines.get(4));
        assertThat(last.get("telemetry").get("power_w").asDouble()).isEqualTo(400);
        assertThat(last.get("profile").get("ranges").get(0).get("tag").asText()).isEqualTo("gemm");
        // AORTA's default window (wait 1, warmup 1, active 2, repeat 1): steps 2 and 3
        assertThat(out.resolve("torch_profiler/rank0/trace_step3.json")).exists();
    }

    @Test
    void withoutNvmlThereIsOneWarningAndTheLinesHaveNoTelemetry() throws IOException {
        TrainerConfig cfg = config("telemetry.nvml=true");
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        try (RankLog log = RankLog.open(out, 1, cfg.logging().level());
             StepReporter r = new StepReporter(cfg, 1, 2, 5, 5, true, 0, ROLES,
                     new PrintStream(console, true, StandardCharsets.UTF_8), log, warn -> {
                         throw new UnsatisfiedLinkError("libnvidia-ml.so.1: cannot open shared object file");
                     })) {
            for (int s = 0; s < 3; s++) {
                r.report(s, 0.5, 1.0, 3e-4, true, records(s), 0, 1_000_000);
            }
        }
        assertThat(text(console).lines().filter(l -> l.startsWith("warning: "))).singleElement().asString()
                .contains("telemetry.nvml", "libnvidia-ml.so.1", "training goes on without telemetry");
        assertThat(Files.readAllLines(out.resolve("rank1.log"))).filteredOn(l -> l.contains(" WARNING ")).hasSize(1);
        assertThat(Files.readAllLines(out.resolve("rank_01_metrics.jsonl")))
                .allSatisfy(l -> assertThat(l).doesNotContain("telemetry"));
        assertThat(text(console)).contains("allreduce 0.00, reducescatter 0.00");
    }

    @Test
    void otherRanksPrintNothingAndLogEveryStepAtDebug() throws IOException {
        TrainerConfig cfg = config("logging.level=DEBUG");
        try (RankLog log = RankLog.open(out, 3, cfg.logging().level());
             StepReporter r = new StepReporter(cfg, 3, 4, 5, 5, true, 0, ROLES, null, log, warn -> {
                 throw new AssertionError("telemetry is off");
             })) {
            for (int s = 0; s < 5; s++) {
                r.report(s, 0.5, 1.0, 3e-4, true, records(s), 0, 1_000_000);
            }
        }
        List<String> log = Files.readAllLines(out.resolve("rank3.log"));
        assertThat(log).filteredOn(l -> l.contains(" DEBUG rank 3: step ")).hasSize(2);
        assertThat(log).filteredOn(l -> l.contains(" INFO rank 3: step ")).hasSize(3);
    }
}
