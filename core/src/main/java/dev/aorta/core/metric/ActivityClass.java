package dev.aorta.core.metric;

/** The classes of docs/metrics.md#classification: C (compute), M (communication), Y (memory traffic), and what counts as none of them. */
public enum ActivityClass {
    COMPUTE, COMMUNICATION, MEMORY, OTHER
}
