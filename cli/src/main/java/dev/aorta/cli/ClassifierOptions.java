package dev.aorta.cli;

import dev.aorta.core.metric.ActivityClassifier;
import picocli.CommandLine.Option;

import java.util.regex.PatternSyntaxException;

/** The classification patterns, shared by the commands that measure. */
public final class ClassifierOptions {
    @Option(names = "--comm-pattern", paramLabel = "REGEX",
            description = "Kernel names that are communication (default: ${DEFAULT-VALUE}).")
    String communication = ActivityClassifier.DEFAULT_COMMUNICATION;

    @Option(names = "--memory-pattern", paramLabel = "REGEX",
            description = "Kernel names that are memory traffic (default: ${DEFAULT-VALUE}); memcpy/memset records always are.")
    String memory = ActivityClassifier.DEFAULT_MEMORY;

    public ActivityClassifier classifier() {
        try {
            return new ActivityClassifier(communication, memory);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("--comm-pattern/--memory-pattern: not a regular expression ("
                    + e.getDescription() + " in '" + e.getPattern() + "')");
        }
    }
}
