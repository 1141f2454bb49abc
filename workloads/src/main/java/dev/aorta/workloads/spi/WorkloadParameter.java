package dev.aorta.workloads.spi;

import java.util.List;

/**
 * One workload option: {@code --param name=value}, either an integer from {@code minimum} to {@code maximum} or,
 * when {@code choices} is not empty, one of those words (e.g. a pattern name). The harness checks every given value
 * against its declaration before it opens the GPU, so that a bad value is the error a user reads, not a later
 * failure of the device.
 */
public record WorkloadParameter(String name, String defaultValue, String description, int minimum, int maximum,
                                List<String> choices) {

    public WorkloadParameter {
        choices = List.copyOf(choices);
        if (minimum > maximum) {
            throw new IllegalArgumentException(name + ": minimum " + minimum + " is above maximum " + maximum);
        }
        if (!choices.isEmpty() && !choices.contains(defaultValue)) {
            throw new IllegalArgumentException(name + ": default " + defaultValue + " is not one of " + choices);
        }
    }

    /** An integer from {@code minimum} to {@code maximum}. */
    public WorkloadParameter(String name, String defaultValue, String description, int minimum, int maximum) {
        this(name, defaultValue, description, minimum, maximum, List.of());
    }

    /** Any integer. */
    public WorkloadParameter(String name, String defaultValue, String description) {
        this(name, defaultValue, description, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    /** A count or a size: an integer of 1 or more. */
    public static WorkloadParameter positive(String name, String defaultValue, String description) {
        return new WorkloadParameter(name, defaultValue, description, 1, Integer.MAX_VALUE);
    }

    /**
     * A count of things in flight (batches, requests, microbatches) whose default grows with the streams: 0, the
     * default, is AORTA's value, or one per stream of the role that needs them where that is more, so that every stream
     * works at every count of the range a sweep reaches; a value given explicitly is taken as it is.
     */
    public static WorkloadParameter growing(String name, int aortas, String description, String role) {
        return new WorkloadParameter(name, "0", description + "; 0: AORTA's " + aortas + ", or one per " + role
                + " stream where that is more", 0, Integer.MAX_VALUE);
    }

    /** One word of {@code choices}, e.g. {@code pattern=argmin|balanced}. */
    public static WorkloadParameter choice(String name, String defaultValue, String description, String... choices) {
        return new WorkloadParameter(name, defaultValue, description, Integer.MIN_VALUE, Integer.MAX_VALUE,
                List.of(choices));
    }

    public boolean isChoice() {
        return !choices.isEmpty();
    }

    /** The integer {@code text} stands for; a bad one is an error naming the parameter, the value and what it allows. */
    public int parse(String text) {
        if (isChoice()) {
            throw new IllegalStateException(name + " is a choice among " + choices + ", not an integer");
        }
        Integer value = null;
        try {
            value = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            // not an integer (or beyond int): the same answer as a value out of range
        }
        if (value == null || value < minimum || value > maximum) {
            throw new IllegalArgumentException("--param " + name + "=" + text + ": expected " + allowed());
        }
        return value;
    }

    /** The word {@code text} names, checked against the choices. */
    public String parseChoice(String text) {
        if (!isChoice()) {
            throw new IllegalStateException(name + " is an integer, not a choice");
        }
        String word = text.trim();
        if (!choices.contains(word)) {
            throw new IllegalArgumentException("--param " + name + "=" + text + ": expected " + allowed());
        }
        return word;
    }

    /** Checks a given value of either kind; the error is the one {@link #parse} or {@link #parseChoice} gives. */
    public void check(String text) {
        if (isChoice()) {
            parseChoice(text);
        } else {
            parse(text);
        }
    }

    /** What the parameter accepts, in words: "an integer of 1 or more", "one of argmin, balanced". */
    public String allowed() {
        if (isChoice()) {
            return "one of " + String.join(", ", choices);
        }
        if (minimum == Integer.MIN_VALUE && maximum == Integer.MAX_VALUE) {
            return "an integer";
        }
        if (maximum == Integer.MAX_VALUE) {
            return "an integer of " + minimum + " or more";
        }
        if (minimum == Integer.MIN_VALUE) {
            return "an integer of " + maximum + " or less";
        }
        return "an integer from " + minimum + " to " + maximum;
    }
}
