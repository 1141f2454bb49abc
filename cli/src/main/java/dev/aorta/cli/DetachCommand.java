package dev.aorta.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code aorta detach <pid>}: stops the agent in a running JVM; it closes an open window and flushes its files. */
@Command(name = "detach", mixinStandardHelpOptions = true, description = {
        "Stop the aorta agent in a running JVM: recording stops, an open window closes, files are flushed and closed.",
        "The woven calls stay (one flag read each); a JVM carries the agent once, so profiling again needs a restart."})
final class DetachCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PID", description = "process id of the target JVM")
    long pid;

    @Option(names = "--agent-jar", paramLabel = "JAR", description = "default: lib/aorta-agent.jar of this installation")
    Path agentJar;

    @Override
    public Integer call() throws Exception {
        Path jar = AgentChannel.agentJar(agentJar);
        try (AgentChannel channel = AgentChannel.open(pid)) {
            if (channel.runningAgentOutput() == null) {
                throw new IllegalStateException("JVM " + pid + " has no aorta agent to detach");
            }
            System.out.println("JVM " + pid + ": " + channel.command(jar, "detach"));
        }
        return 0;
    }
}
