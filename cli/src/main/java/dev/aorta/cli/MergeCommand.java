package dev.aorta.cli;

import dev.aorta.analyzer.clock.CollectiveAlignment;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.analyzer.export.PerfettoExporter;
import dev.aorta.core.io.AtomicFiles;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code aorta merge}: one Perfetto-loadable timeline of every rank, agent records and device traces together. */
@Command(name = "merge", mixinStandardHelpOptions = true,
        description = {"Merge agent records and device traces of a run into one timeline and write it as Chrome/Perfetto"
                + " trace JSON: ranks as processes, streams as tracks, iterations as slices; ranks aligned by collectives."})
public final class MergeCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "TRACE", description = "Trace files or directories.")
    List<Path> traces;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE", description = "The trace JSON to write.")
    Path output;

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    @Mixin
    ClassifierOptions classes = new ClassifierOptions();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        TraceSet set = TraceLoader.withInstalledReaders().load(traces);
        List<RankTimeline> timelines = new ArrayList<>();
        List<String> warnings = new ArrayList<>(set.warnings());
        for (RankTrace r : set.ranks()) {
            RankTimeline t = new RankTimeline(r, classes.classifier());
            warnings.addAll(t.warnings());
            timelines.add(t);
        }
        Map<Integer, CollectiveAlignment.Offset> offsets = CollectiveAlignment.align(timelines);
        warnings.addAll(CollectiveAlignment.implausible(offsets, timelines));
        AtomicFiles.write(output, out -> PerfettoExporter.write(timelines, offsets, out));
        warnings.forEach(w -> spec.commandLine().getErr().println("aorta merge: warning: " + w));
        long records = timelines.stream().mapToLong(t -> t.activities().size() + t.markers().size()
                + t.apiCalls().size()).sum();
        spec.commandLine().getOut().printf(Locale.ROOT, "wrote %s: %d ranks, %d records%n", output, timelines.size(), records);
        for (CollectiveAlignment.Offset o : offsets.values()) {
            if (timelines.size() > 1) {
                spec.commandLine().getOut().printf(Locale.ROOT, "  rank %d offset %+.3f ms (%d collectives matched)%n", o.rank(),
                        o.offsetNs() / 1e6, o.matchedCollectives());
            }
        }
        return 0;
    }
}
