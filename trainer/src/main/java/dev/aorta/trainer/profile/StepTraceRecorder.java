package dev.aorta.trainer.profile;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.analyzer.export.PerfettoExporter;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;
import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.trainer.config.ProfilingConfig;
import dev.aorta.trainer.schedule.StreamRole;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code profiling.enabled}: the device records (CUPTI's, the ones every step collects for its metrics line) of the
 * steps that {@link ProfilingWindow} marks active, written per completed cycle as a Chrome/Perfetto trace by the
 * analyzer's {@link PerfettoExporter}: one track per stream, named by its role, and an "iterations" track with one
 * slice per traced step, from its start marker to its end marker. The file is
 * {@code <output_dir>/torch_profiler/rank<r>/<name>_step<N><ext>}, where AORTA's torch.profiler handler puts its
 * traces, {@code <name><ext>} is {@code profiling.trace_filename} and N the cycle's last step. {@code aorta analyze}
 * reads it (the exporter's file carries the kinds, streams, roles and steps it needs; its process is the rank). The
 * file is written beside its target and renamed into place, so it is whole or absent.
 */
public final class StepTraceRecorder {
    private final ProfilingWindow window;
    private final Path directory;
    private final String stem;
    private final String extension;
    private final int rank;
    private final int device;
    private final Map<Long, StreamRole> roles;
    private final List<DeviceActivity> kept = new ArrayList<>();
    private final List<Marker> steps = new ArrayList<>();
    private long lastKeptStep = -1;

    public StepTraceRecorder(ProfilingWindow window, Path outputDir, String traceFilename, int rank, int device,
                             Map<Long, StreamRole> roles) {
        this.window = window;
        this.directory = directoryFor(outputDir, rank);
        int dot = traceFilename.lastIndexOf('.');
        this.stem = dot > 0 ? traceFilename.substring(0, dot) : traceFilename;
        this.extension = dot > 0 ? traceFilename.substring(dot) : ".json";
        this.rank = rank;
        this.device = device;
        this.roles = Map.copyOf(roles);
    }

    public static StepTraceRecorder of(ProfilingConfig cfg, Path outputDir, int rank, int device,
                                       Map<Long, StreamRole> roles) {
        return new StepTraceRecorder(ProfilingWindow.of(cfg), outputDir, cfg.traceFilename(), rank, device, roles);
    }

    public static Path directoryFor(Path outputDir, int rank) {
        return outputDir.resolve("torch_profiler").resolve("rank" + rank);
    }

    /**
     * Takes step {@code step}'s records (the start and end markers among them: the earliest start and the latest
     * end); keeps them if the step is active and writes the cycle's trace after its last active step.
     *
     * @return the trace written, or null
     */
    public Path step(long step, List<DeviceActivity> records) throws IOException {
        if (window.phaseOf(step) != ProfilingWindow.Phase.ACTIVE || records.isEmpty()) {
            return null;
        }
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        for (DeviceActivity a : records) {
            start = Math.min(start, a.startNs());
            end = Math.max(end, a.endNs());
        }
        kept.addAll(records);
        steps.add(new Marker(Marker.Kind.ITERATION, "step " + step, rank, step, start, end,
                records.getFirst().clock()));
        lastKeptStep = step;
        return window.endsCycle(step) ? write() : null;
    }

    /** Writes the active steps kept since the last trace, when the run ends inside a cycle; null if none. */
    public Path finish() throws IOException {
        return steps.isEmpty() ? null : write();
    }

    private Path write() throws IOException {
        RankTrace trace = new RankTrace(rank);
        trace.activities().addAll(kept);
        trace.markers().addAll(steps);
        roles.forEach((stream, role) -> trace.streams().add(new StreamInfo(stream, device, 0, 0, role.label())));
        RankTimeline timeline = new RankTimeline(trace, ActivityClassifier.defaults());
        String name = String.format(Locale.ROOT, "%s_step%d", stem, lastKeptStep);
        Files.createDirectories(directory);
        Path target = directory.resolve(name + extension);
        writeAtomically(target, out -> PerfettoExporter.write(List.of(timeline), Map.of(), out));
        kept.clear();
        steps.clear();
        return target;
    }

    private interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    private static void writeAtomically(Path target, Content content) throws IOException {
        Path partial = target.resolveSibling(target.getFileName() + ".partial");
        try (OutputStream out = Files.newOutputStream(partial)) {
            content.writeTo(out);
        }
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
