package dev.aorta.analyzer.metrics;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** What one plugin {@link Analysis} measured in one window. */
public record AnalysisResult(String analysis, List<Analysis.Value> values) {

    /** {@code "name value name value ..."}: whole numbers without decimals, others with three. */
    public String valuesText() {
        return values.stream().map(v -> v.name() + " " + number(v.value())).collect(Collectors.joining("  "));
    }

    private static String number(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : String.format(Locale.ROOT, "%.3f", v);
    }
}
