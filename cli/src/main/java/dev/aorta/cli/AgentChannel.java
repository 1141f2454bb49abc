package dev.aorta.cli;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The way to a running JVM's agent, shared by {@code aorta attach}, {@code capture} and {@code detach}: the Attach
 * API loads the agent jar, and loading it again with {@code command=...} talks to the agent already there. The
 * agent answers in system properties (the Attach API carries no message back), which are read here.
 */
final class AgentChannel implements AutoCloseable {
    /** Set by a running agent: the directory it writes to (see the agent's AgentInstaller). */
    static final String OUTPUT_PROPERTY = "aorta.agent.output";
    /** Set by the agent after each command: its answer, or "refused: why". */
    static final String REPLY_PROPERTY = "aorta.agent.reply";

    private final long pid;
    private final VirtualMachine vm;

    private AgentChannel(long pid, VirtualMachine vm) {
        this.pid = pid;
        this.vm = vm;
    }

    /** The agent jar to load: the one given, else lib/aorta-agent.jar of this installation. */
    static Path agentJar(Path given) {
        Path jar = given != null ? given : Path.of(System.getProperty("aorta.home", "."), "lib", "aorta-agent.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("option --agent-jar: no agent jar at '" + jar.toAbsolutePath()
                    + "' (expected the shaded aorta-agent.jar, e.g. dist/lib/aorta-agent.jar)");
        }
        return jar.toAbsolutePath();
    }

    static AgentChannel open(long pid) {
        try {
            return new AgentChannel(pid, VirtualMachine.attach(Long.toString(pid)));
        } catch (AttachNotSupportedException | IOException e) {
            throw new IllegalStateException("cannot attach to JVM " + pid + ": " + e.getMessage()
                    + " (is it a JVM of the same user, started without -XX:+DisableAttachMechanism?)");
        }
    }

    /** Where the agent already running in the JVM writes, or null when it has none. */
    String runningAgentOutput() throws IOException {
        return vm.getSystemProperties().getProperty(OUTPUT_PROPERTY);
    }

    /** Starts the agent with {@code args}; its reason for refusing is in the target's stderr. */
    void start(Path jar, String args) throws IOException {
        try {
            vm.loadAgent(jar.toString(), args);
        } catch (AgentInitializationException | AgentLoadException e) {
            throw new IllegalStateException("the agent did not start in JVM " + pid + " (" + e.getMessage()
                    + "); its reason is in that JVM's stderr");
        }
    }

    /** Sends a command to the running agent and returns its answer; a refusal is thrown with the agent's reason. */
    String command(Path jar, String command) throws IOException {
        try {
            vm.loadAgent(jar.toString(), "command=" + command);
        } catch (AgentInitializationException | AgentLoadException e) {
            String reply = vm.getSystemProperties().getProperty(REPLY_PROPERTY, "");
            throw new IllegalStateException("JVM " + pid + ": " + (reply.startsWith("refused: ")
                    ? reply.substring("refused: ".length()) : "the agent did not take the command (" + e.getMessage()
                    + "); its reason is in that JVM's stderr"));
        }
        return vm.getSystemProperties().getProperty(REPLY_PROPERTY, "done");
    }

    @Override
    public void close() throws IOException {
        vm.detach();
    }
}
