package dev.aorta.api;

/**
 * Iteration markers for the aorta agent. Without the agent every method is an empty call that the JIT
 * removes; with the agent attached these methods are instrumented and delimit the iterations that
 * {@code rank_<r>_metrics.jsonl} and the {@code aorta.Iteration} JFR events describe.
 *
 * <p>Use either {@link #stepBegin()}/{@link #stepEnd()} around each iteration, or call {@link #step(long)}
 * at the top of every iteration (it ends the previous one). {@link #finish()} ends the last open one.
 */
public final class Aorta {
    private Aorta() {
    }

    /** An iteration begins (numbered by the agent 0, 1, 2, ...). */
    public static void stepBegin() {
        // intentionally empty: the agent's advice is woven in here
    }

    /** The current iteration ends. */
    public static void stepEnd() {
        // intentionally empty: the agent's advice is woven in here
    }

    /** Iteration {@code n} begins; the previous one, if open, ends here. */
    public static void step(long n) {
        // intentionally empty: the agent's advice is woven in here
    }

    /** Ends the open iteration, if any (call it after the training loop). */
    public static void finish() {
        // intentionally empty: the agent's advice is woven in here
    }
}
