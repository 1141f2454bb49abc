package dev.aorta.agent;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's only voice: one line per fact on stderr, prefixed {@code [aorta]}. No logging framework,
 * so that nothing of ours meets the application's logging configuration.
 */
public final class AgentLog {
    private static final Set<String> SAID_ONCE = ConcurrentHashMap.newKeySet();
    private static volatile boolean verbose;

    private AgentLog() {
    }

    static void setVerbose(boolean v) {
        verbose = v;
    }

    public static void info(String msg) {
        System.err.println("[aorta] " + msg);
    }

    public static void debug(String msg) {
        if (verbose) {
            System.err.println("[aorta] " + msg);
        }
    }

    public static void error(String msg) {
        System.err.println("[aorta] ERROR: " + msg);
    }

    /** Logs {@code msg} the first time {@code key} is seen, so that a recurring failure costs one line. */
    public static void once(String key, String msg) {
        if (SAID_ONCE.add(key)) {
            info(msg);
        }
    }
}
