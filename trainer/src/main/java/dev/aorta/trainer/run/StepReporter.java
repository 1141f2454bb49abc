package dev.aorta.trainer.run;

import dev.aorta.core.event.DeviceActivity;
import dev.aorta.trainer.config.LoggingConfig.Level;
import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.log.RankLog;
import dev.aorta.trainer.metrics.ActivityProfile;
import dev.aorta.trainer.metrics.MetricsJsonlWriter;
import dev.aorta.trainer.metrics.StepOverlap;
import dev.aorta.trainer.metrics.StepRecord;
import dev.aorta.trainer.profile.StepTraceRecorder;
import dev.aorta.trainer.schedule.StreamRole;
import dev.aorta.trainer.telemetry.TelemetrySampler;
import dev.aorta.trainer.telemetry.TelemetrySource;
import dev.aorta.trainer.telemetry.TelemetrySummary;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What a rank reports after each step, the same in both trainers: the metrics line (with the step's NVML summary
 * under {@code telemetry.nvml}), the step's records to the profiling trace when the window selects it
 * ({@code profiling.enabled}), and the step line: to the rank's log ({@link RankLog}) every
 * {@code log_interval} steps and at the last (every step at DEBUG), and on rank 0 also to the console.
 */
final class StepReporter implements AutoCloseable {
    private final TrainerConfig cfg;
    private final int rank;
    private final int worldSize;
    private final int planned;
    private final int perEpoch;
    private final boolean collectiveStreams;
    private final Map<Long, StreamRole> roles;
    private final PrintStream console;
    private final RankLog log;
    private final MetricsJsonlWriter writer;
    private final StepTraceRecorder trace;
    private final TelemetrySampler telemetry;

    /**
     * @param collectiveStreams whether the step line lists the allreduce and reducescatter streams (the sharded
     *                          trainer's line)
     * @param console           where rank 0 prints its lines and warnings; null on the other ranks
     * @param telemetrySource   opens the NVML source, given where to report a field it cannot read; called only
     *                          under {@code telemetry.nvml}
     */
    StepReporter(TrainerConfig cfg, int rank, int worldSize, int planned, int perEpoch, boolean collectiveStreams,
                 int device, Map<Long, StreamRole> roles, PrintStream console, RankLog log,
                 Function<Consumer<String>, TelemetrySource> telemetrySource) throws IOException {
        this.cfg = cfg;
        this.rank = rank;
        this.worldSize = worldSize;
        this.planned = planned;
        this.perEpoch = perEpoch;
        this.collectiveStreams = collectiveStreams;
        this.roles = roles;
        this.console = console;
        this.log = log;
        Path outputDir = Path.of(cfg.training().outputDir());
        this.trace = cfg.profiling().enabled()
                ? StepTraceRecorder.of(cfg.profiling(), outputDir, rank, device, roles) : null;
        this.telemetry = cfg.telemetry().nvml() ? startTelemetry(telemetrySource) : null;
        this.writer = MetricsJsonlWriter.open(outputDir, rank);
    }

    private TelemetrySampler startTelemetry(Function<Consumer<String>, TelemetrySource> open) {
        TelemetrySource source;
        try {
            source = open.apply(this::warn);
        } catch (RuntimeException | LinkageError e) {
            warn("telemetry.nvml is on but NVML cannot be used (" + e.getMessage() + "); training goes on without"
                    + " telemetry");
            return null;
        }
        return new TelemetrySampler(source, cfg.telemetry().intervalMs(), this::warn);
    }

    void warn(String message) {
        log.warning(message);
        if (console != null) {
            console.println("warning: " + message);
        }
    }

    /**
     * Reports step {@code s} from its device records (its start and end markers among them) and the host's
     * window [hostStartNs, hostEndNs] ({@link System#nanoTime()}), which selects its telemetry samples.
     */
    ActivityProfile.Built report(int s, double loss, double gradNorm, double lr, boolean applied,
                                 List<DeviceActivity> records, long hostStartNs, long hostEndNs) throws IOException {
        ActivityProfile.Built built = ActivityProfile.of(s, records, roles);
        TelemetrySummary t = telemetry == null ? null : telemetry.summarise(hostStartNs, hostEndNs);
        double stepMs = (hostEndNs - hostStartNs) / 1e6;
        writer.write(new StepRecord(rank, worldSize, s / perEpoch, s % perEpoch, s, loss, gradNorm, lr,
                built.profile(), stepMs, StepRecord.DeviceTimeSource.CUPTI, t));
        if (trace != null) {
            Path written = trace.step(s, records);
            if (written != null) {
                log.info("profiling trace of steps up to " + s + ": " + written);
            }
        }
        boolean due = s % cfg.training().logInterval() == 0 || s == planned - 1;
        if (due || log.enabled(Level.DEBUG)) {
            String line = line(s, loss, lr, gradNorm, applied, stepMs, built, t);
            log.log(due ? Level.INFO
                    : Level.DEBUG, line);
            if (due && console != null) {
                console.println(line);
            }
        }
        return built;
    }

    private String line(int s, double loss, double lr, double gradNorm, boolean applied, double stepMs,
                        ActivityProfile.Built built, TelemetrySummary t) {
        StepOverlap o = built.profile().overlap();
        String streams = collectiveStreams
                ? String.format(Locale.ROOT, "compute %.2f, allreduce %.2f, reducescatter %.2f, aux %.2f",
                o.perStreamMs().get(StreamRole.COMPUTE), o.perStreamMs().get(StreamRole.ALLREDUCE),
                o.perStreamMs().get(StreamRole.REDUCESCATTER), o.perStreamMs().get(StreamRole.AUX))
                : String.format(Locale.ROOT, "compute %.2f, aux %.2f", o.perStreamMs().get(StreamRole.COMPUTE),
                o.perStreamMs().get(StreamRole.AUX));
        String gpu = t == null ? "" : String.format(Locale.ROOT, "  gpu %.0f W %.0f MHz %.0f C", t.powerW(),
                t.smClockMHz(), t.temperatureC());
        return String.format(Locale.ROOT, "step %d/%d  loss %.6f  lr %.3e  grad_norm %.4f%s  step %.2f ms"
                        + "  device %.2f ms (%s, overlap compute_comm %.2f)%s",
                s, planned, loss, lr, gradNorm, applied ? "" : " (overflow: step skipped)", stepMs,
                built.profile().totalNs() / 1e6, streams, o.computeCommMs(), gpu);
    }

    /** Writes a profiling cycle cut short by the run's end and stops the telemetry thread. */
    @Override
    public void close() throws IOException {
        try {
            if (trace != null) {
                Path written = trace.finish();
                if (written != null) {
                    log.info("profiling trace of the last traced steps: " + written);
                }
            }
        } finally {
            if (telemetry != null) {
                telemetry.close();
            }
            writer.close();
        }
    }
}
