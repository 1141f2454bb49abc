package dev.aorta.agent;

import java.lang.instrument.Instrumentation;

/**
 * The agent's entry points ({@code Premain-Class} and {@code Agent-Class}). Deliberately tiny: whatever
 * goes wrong while starting is reported in one line and the application runs on unprofiled.
 */
public final class AortaAgent {
    private AortaAgent() {
    }

    /** {@code java -javaagent:aorta-agent.jar[=key=value,...]}. */
    public static void premain(String args, Instrumentation inst) {
        try {
            AgentInstaller.install(args, inst, false);
        } catch (Throwable t) {
            AgentLog.error("agent not started: " + t);
        }
    }

    /**
     * {@code aorta attach <pid>} (Attach API). A configuration error is rethrown so that the attaching
     * tool reports the failure; it never reaches the application's threads.
     */
    public static void agentmain(String args, Instrumentation inst) {
        AgentInstaller.install(args, inst, true);
    }
}
