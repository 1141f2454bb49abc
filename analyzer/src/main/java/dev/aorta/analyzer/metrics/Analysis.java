package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;

import java.util.List;

/**
 * A metric of one rank's window that a plugin adds to the analyzer. Implementations are found with
 * {@link java.util.ServiceLoader} (list them in {@code META-INF/services/dev.aorta.analyzer.metrics.Analysis}; put
 * the jar into the installation's {@code plugins/} folder, see docs/plugins.md) and run on every window that
 * {@code aorta analyze} and {@code aorta report} measure, after the built-in metrics.
 *
 * <p>The contract is deliberately small: a name and named numbers. The analyzer renders them everywhere the
 * built-in metrics appear, so a plugin writes no output code: {@code aorta analyze} prints a line
 * {@code "  <name>: <value name> <value> ..."} per window and adds {@code "analyses": {<name>: {<value name>:
 * <value>}}} to each JSON object; {@code aorta report} aggregates each value over the iterations of every label
 * (count, mean, median, std, min, max) into {@code summary.json} ({@code "analyses"}) and a table of report.html.
 *
 * <p>An implementation needs a public no-argument constructor, keeps no state between calls and reads only
 * what it is given: windows and ranks are measured in parallel, so {@link #measure} runs on several threads at once. Name values with their unit as the built-in metrics do ({@code busy_ns}, {@code share_pct}).
 * An exception thrown by {@link #measure} becomes a warning naming the analysis, rank and window; the other
 * windows and analyses are unaffected.
 */
public interface Analysis {

    /** The section's name in text, JSON and HTML: lower_snake_case, unique among the installed analyses. */
    String name();

    /**
     * The values of {@code window} (on {@code timeline}'s clock) in the order to show them; an empty list when the
     * window has nothing this analysis measures (then no section appears for it).
     */
    List<Value> measure(RankTimeline timeline, Window window);

    /** One named number; NaN when undefined (written as null in JSON). */
    record Value(String name, double value) {
    }
}
