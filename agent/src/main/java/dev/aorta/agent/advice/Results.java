package dev.aorta.agent.advice;

/** Result codes the agent records besides the library's own. */
public final class Results {
    /** The call threw (JCuda with exceptions enabled, for example) instead of returning a code. */
    public static final int THREW = -1;

    private Results() {
    }
}
