package dev.aorta.analyzer.classify;

/** The classes of docs/metrics.md: C (compute), M (communication), Y (memory traffic), and what counts as none of them. */
public enum ActivityClass {
    COMPUTE, COMMUNICATION, MEMORY, OTHER
}
