package dev.aorta.agent.config;

/**
 * Where the application stream waits for a collective that {@code bind-collectives} moved onto the
 * communication stream.
 */
public enum JoinMode {
    /** Right after the collective is enqueued: stream order is exactly the application's. Always safe. */
    IMMEDIATE("immediate"),
    /**
     * At the next synchronizing call the agent intercepts (stream/context/event synchronize, synchronous
     * copy). Unsafe if kernels enqueued before that call read the collective's result.
     */
    NEXT_SYNC("next-sync"),
    /** At the end of the iteration ({@code Aorta.stepEnd} etc.). Unsafe under the same condition. */
    ITERATION_END("iteration-end");

    private final String option;

    JoinMode(String option) {
        this.option = option;
    }

    public String option() {
        return option;
    }

    /** {@code subject}: how an error names the option ("option 'x'", or the variable or file its value came from). */
    static JoinMode parse(String subject, String value) {
        for (JoinMode m : values()) {
            if (m.option.equals(value)) {
                return m;
            }
        }
        throw new OptionsException(subject + ": expected immediate, next-sync or iteration-end, got '" + value + "'");
    }
}
