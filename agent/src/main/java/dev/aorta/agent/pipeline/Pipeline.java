package dev.aorta.agent.pipeline;

import dev.aorta.agent.AgentLog;
import dev.aorta.agent.config.AgentOptions;
import dev.aorta.agent.config.AgentOptions.Sink;
import dev.aorta.agent.jfr.JfrSink;
import dev.aorta.core.event.StreamInfo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Builds the sinks named by the options, the decoder and the drain thread, and stops them at JVM exit. */
public final class Pipeline {
    private final Drainer drainer;
    private final int rank;
    private final SampledKernelComparison comparison;

    private Pipeline(Drainer drainer, int rank, SampledKernelComparison comparison) {
        this.drainer = drainer;
        this.rank = rank;
        this.comparison = comparison;
    }

    public static Pipeline start(AgentOptions options, Map<String, String> env) {
        int rank = options.rank(env);
        int worldSize = options.worldSize(env);
        Set<Sink> wanted = options.sinks();
        Drainer[] drainer = new Drainer[1];
        List<GuardedSink> sinks = new ArrayList<>();
        Path out = options.output();
        if ((wanted.contains(Sink.JSONL) || wanted.contains(Sink.METRICS)) && writableDirectory(out)) {
            open(sinks, "jsonl", () -> new JsonlSink(out.resolve("rank_" + rank + "_activity.jsonl")), wanted.contains(Sink.JSONL));
            open(sinks, "metrics", () -> new MetricsSink(out.resolve("rank_" + rank + "_metrics.jsonl"), rank, worldSize,
                    options.maxRanges(), () -> drainer[0].deviceSource().name(), () -> drainer[0].dropped(),
                    () -> drainer[0].droppedDeviceRecords(),
                    () -> drainer[0].openIterationStart()),
                    wanted.contains(Sink.METRICS));
        }
        String jfr = options.jfrFile();
        open(sinks, "jfr", () -> new JfrSink(jfr.isEmpty() ? null : Path.of(jfr)), wanted.contains(Sink.JFR));
        SampledKernelComparison comparison = null;
        if (options.deviceSource() == AgentOptions.DeviceSource.VALIDATE) {
            comparison = new SampledKernelComparison();
            sinks.add(new GuardedSink("validate", comparison));
        }
        drainer[0] = new Drainer(new Fanout(sinks), options.categories(), rank, options.drainIntervalMs());
        drainer[0].submit(new StreamInfo(0, 0, 0, 0, "default"));
        drainer[0].start();
        Runtime.getRuntime().addShutdownHook(new Thread(drainer[0]::shutdown, "aorta-shutdown"));
        return new Pipeline(drainer[0], rank, comparison);
    }

    /** With {@code device-activity=validate}: where the sampled kernels go, to be compared with CUPTI's; else null. */
    public SampledKernelComparison comparison() {
        return comparison;
    }

    public Drainer drainer() {
        return drainer;
    }

    public int rank() {
        return rank;
    }

    private interface SinkFactory {
        EventSink open() throws IOException;
    }

    private static void open(List<GuardedSink> sinks, String name, SinkFactory factory, boolean wanted) {
        if (!wanted) {
            return;
        }
        try {
            sinks.add(new GuardedSink(name, factory.open()));
        } catch (IOException | RuntimeException e) {
            AgentLog.error("sink '" + name + "' could not start (" + e + "); the application continues without it");
        }
    }

    /** Creates the output directory; one clear error (and no files) when that is impossible. */
    private static boolean writableDirectory(Path dir) {
        try {
            Files.createDirectories(dir);
            if (!Files.isWritable(dir)) {
                throw new IOException("not writable");
            }
            return true;
        } catch (IOException | RuntimeException e) {
            AgentLog.error("cannot write to output directory '" + dir.toAbsolutePath() + "' (option 'output'): " + e
                    + "; no activity or metrics files, the application continues");
            return false;
        }
    }
}
