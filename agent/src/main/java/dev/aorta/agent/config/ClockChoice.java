package dev.aorta.agent.config;

/** Which clock the hot path reads (option {@code clock}); every timestamp written is CLOCK_MONOTONIC ns either way. */
public enum ClockChoice {
    /** {@code tsc} where it is safe and allowed (see {@code HostClock}), else {@code nanotime}. */
    AUTO("auto"),
    /** The time-stamp counter, read with {@code rdtsc} through FFM; converted to ns off the hot path. */
    TSC("tsc"),
    /** {@code System.nanoTime()}. */
    NANOTIME("nanotime");

    private final String option;

    ClockChoice(String option) {
        this.option = option;
    }

    public String option() {
        return option;
    }

    /** {@code subject}: how an error names the option ("option 'x'", or the variable or file its value came from). */
    static ClockChoice parse(String subject, String value) {
        for (ClockChoice c : values()) {
            if (c.option.equals(value)) {
                return c;
            }
        }
        throw new OptionsException(subject + ": expected auto, tsc or nanotime, got '" + value + "'");
    }
}
