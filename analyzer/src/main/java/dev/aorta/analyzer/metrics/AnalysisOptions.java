package dev.aorta.analyzer.metrics;

import dev.aorta.core.metric.ActivityClassifier;

/** What to measure: the windows, how activities are classified and how many kernel names to list per class. */
public record AnalysisOptions(WindowMode windows, ActivityClassifier classifier, int topKernels) {
    public static AnalysisOptions defaults() {
        return new AnalysisOptions(WindowMode.STEPS, ActivityClassifier.defaults(), 10);
    }
}
