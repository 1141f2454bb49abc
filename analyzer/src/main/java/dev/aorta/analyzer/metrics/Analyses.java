package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.spi.ServiceProviders;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The plugin {@link Analysis analyses} to run, and the lines about plugins that could not be loaded.
 *
 * @param skipped one line per analysis left out (it failed to load, or its name was taken), for the warnings
 */
public record Analyses(List<Analysis> all, List<String> skipped) {
    public static final Analyses NONE = new Analyses(List.of(), List.of());

    /**
     * The analyses registered with {@link java.util.ServiceLoader} in the current thread's context class loader,
     * which the CLI extends with the jars of the plugins folder.
     */
    public static Analyses installed() {
        List<String> skipped = new ArrayList<>();
        List<Analysis> found = ServiceProviders.load(Analysis.class, Thread.currentThread().getContextClassLoader(),
                skipped::add);
        List<Analysis> unique = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Analysis a : found) {
            if (names.add(a.name())) {
                unique.add(a);
            } else {
                skipped.add("skipped analysis " + a.getClass().getName() + ": its name '" + a.name()
                        + "' is already used by another analysis");
            }
        }
        return new Analyses(List.copyOf(unique), List.copyOf(skipped));
    }

    /** Every analysis's values for {@code window}; one that throws becomes a warning and is left out of this window. */
    List<AnalysisResult> measure(RankTimeline timeline, Window window, List<String> warnings) {
        List<AnalysisResult> results = new ArrayList<>();
        for (Analysis a : all) {
            try {
                List<Analysis.Value> values = a.measure(timeline, window);
                if (values != null && !values.isEmpty()) {
                    results.add(new AnalysisResult(a.name(), List.copyOf(values)));
                }
            } catch (RuntimeException | LinkageError e) {
                warnings.add("analysis " + a.name() + " failed on rank " + timeline.rank() + ", " + window.label()
                        + " (" + e + "); its values are missing for that window");
            }
        }
        return results;
    }
}
