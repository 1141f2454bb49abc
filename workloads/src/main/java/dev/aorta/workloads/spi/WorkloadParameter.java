package dev.aorta.workloads.spi;

/**
 * One workload option: {@code --param name=value}, an integer from {@code minimum} to {@code maximum}. The
 * harness checks every given value against its declaration before it opens the GPU, so that a bad value is
 * the error a user reads, not a later failure of the device.
 */
public record WorkloadParameter(String name, String defaultValue, String description, int minimum, int maximum) {

    public WorkloadParameter {
        if (minimum > maximum) {
            throw new IllegalArgumentException(name + ": minimum " + minimum + " is above maximum " + maximum);
        }
    }

    /** Any integer. */
    public WorkloadParameter(String name, String defaultValue, String description) {
        this(name, defaultValue, description, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    /** A count or a size: an integer of 1 or more. */
    public static WorkloadParameter positive(String name, String defaultValue, String description) {
        return new WorkloadParameter(name, defaultValue, description, 1, Integer.MAX_VALUE);
    }

    /** The value {@code text} stands for; a bad one is an error naming the parameter, the value and what it allows. */
    public int parse(String text) {
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

    /** What the parameter accepts, in words: "an integer of 1 or more". */
    public String allowed() {
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
