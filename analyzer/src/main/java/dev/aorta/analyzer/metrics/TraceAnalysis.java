package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.CollectiveAlignment;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.metric.CollectiveSkew;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The analysis of a whole run: per rank and window reports, the clock offsets estimated from collectives (when
 * there are several ranks) and the straggler of each iteration.
 *
 * @param stepCoverage   per rank measured by steps, how much of its device time lies in no step
 * @param collectiveSkew with several aligned ranks, the skew of each collective kind and size across them
 * @param topKernels     how many kernel names {@link #kernelsAcrossRanks()} lists
 */
public record TraceAnalysis(List<RankTimeline> timelines, List<WindowReport> windows,
                            Map<Integer, CollectiveAlignment.Offset> offsets, List<Stragglers> stragglers,
                            List<CollectiveSkew> collectiveSkew, int topKernels, List<StepCoverage> stepCoverage,
                            List<String> warnings) {

    public static TraceAnalysis of(TraceSet set, AnalysisOptions options) {
        List<String> warnings = new ArrayList<>(set.warnings());
        warnings.addAll(options.analyses().skipped());
        // ranks are independent until they are aligned: each is put on its clock and analysed on its own thread
        // (parallel streams keep the ranks' order, so the output is the same as one rank after the other)
        record Analysed(RankTimeline timeline, List<WindowReport> windows, List<String> warnings,
                        List<StepCoverage> coverage) {
        }
        List<Analysed> analysed = new ArrayList<>(set.ranks()).parallelStream().map(r -> {
            RankTimeline t = new RankTimeline(r, options.classifier());
            List<String> rankWarnings = new ArrayList<>();
            List<StepCoverage> rankCoverage = new ArrayList<>();
            List<WindowReport> rankWindows = RankAnalysis.analyze(t, options, rankWarnings, rankCoverage);
            return new Analysed(t, rankWindows, rankWarnings, rankCoverage);
        }).toList();
        List<RankTimeline> timelines = analysed.stream().map(Analysed::timeline).toList();
        timelines.forEach(t -> warnings.addAll(t.warnings()));
        List<WindowReport> windows = new ArrayList<>();
        List<StepCoverage> coverage = new ArrayList<>();
        for (Analysed a : analysed) {
            warnings.addAll(a.warnings());
            windows.addAll(a.windows());
            coverage.addAll(a.coverage());
        }
        Map<Integer, CollectiveAlignment.Offset> offsets = CollectiveAlignment.align(timelines);
        warnings.addAll(CollectiveAlignment.implausible(offsets, timelines));
        List<Stragglers> stragglers = timelines.size() > 1 ? Stragglers.of(timelines, offsets) : List.of();
        List<CollectiveSkew> skew = timelines.size() > 1 ? CollectiveSkews.of(timelines, offsets) : List.of();
        return new TraceAnalysis(timelines, windows, offsets, stragglers, skew, options.topKernels(), coverage,
                warnings);
    }

    /**
     * The top kernel names over all ranks, per rank and window, computed on each call: it reads every activity of
     * every rank once more, building a record for each, and only the reports that list it need it.
     */
    public List<KernelBreakdown.AcrossRanks> kernelsAcrossRanks() {
        return KernelBreakdown.acrossRanks(timelines, windows, topKernels);
    }
}
