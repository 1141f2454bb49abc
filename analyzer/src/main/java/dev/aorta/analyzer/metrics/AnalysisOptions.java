package dev.aorta.analyzer.metrics;

import dev.aorta.core.metric.ActivityClassifier;

/**
 * What to measure: the windows, how activities are classified, how many kernel names to list per class and the
 * plugin analyses to run after the built-in metrics.
 */
public record AnalysisOptions(WindowMode windows, ActivityClassifier classifier, int topKernels, Analyses analyses) {

    /** With the installed plugin analyses ({@link Analyses#installed()}). */
    public AnalysisOptions(WindowMode windows, ActivityClassifier classifier, int topKernels) {
        this(windows, classifier, topKernels, Analyses.installed());
    }

    public static AnalysisOptions defaults() {
        return new AnalysisOptions(WindowMode.STEPS, ActivityClassifier.defaults(), 10);
    }
}
