package dev.aorta.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/**
 * {@code aorta capture <pid>}: opens a capture window in a running JVM's agent, attaching the agent first (with
 * {@code capture=on-demand}, so that it records only in windows) when the JVM has none.
 */
@Command(name = "capture", mixinStandardHelpOptions = true, description = {
        "Open a capture window in a running JVM's agent (attaching it first, capture=on-demand, when it has none).",
        "Refused while another window is open, naming it. The records carry the window's index; aorta analyze"
                + " --window captures measures each window."})
final class CaptureCommand implements Callable<Integer> {
    private static final Pattern DURATION = Pattern.compile("\\d+(\\.\\d+)?(ms|s|m|h)");

    @Parameters(index = "0", paramLabel = "PID", description = "process id of the target JVM")
    long pid;

    @Option(names = "--duration", paramLabel = "TIME", description = "how long the window stays open, e.g. 5s or"
            + " 500ms; without it, until aorta capture --close")
    String duration;

    @Option(names = "--close", description = "close the open window instead")
    boolean close;

    @Option(names = {"-o", "--option"}, paramLabel = "KEY=VALUE",
            description = "agent options when the agent is attached first (repeatable), e.g. -o output=prof"
                    + " -o between-windows=off")
    List<String> options = new ArrayList<>();

    @Option(names = "--agent-jar", paramLabel = "JAR", description = "default: lib/aorta-agent.jar of this installation")
    Path agentJar;

    @Override
    public Integer call() throws Exception {
        if (duration != null && !DURATION.matcher(duration).matches()) {
            throw new IllegalArgumentException("option --duration: expected a duration such as 5s, 500ms or 2m, got '"
                    + duration + "'");
        }
        if (close && duration != null) {
            throw new IllegalArgumentException("option --close: takes no --duration (it closes the open window now)");
        }
        Path jar = AgentChannel.agentJar(agentJar);
        try (AgentChannel channel = AgentChannel.open(pid)) {
            if (channel.runningAgentOutput() == null) {
                if (close) {
                    throw new IllegalStateException("JVM " + pid + " has no aorta agent, so no window to close");
                }
                AttachCommand attach = new AttachCommand();
                attach.options.add("capture=on-demand");
                attach.options.addAll(options);
                String args = attach.agentArguments();
                AttachCommand.validate(jar, args);
                channel.start(jar, args);
                System.out.println("aorta agent attached to JVM " + pid + " with " + args);
            } else if (!options.isEmpty()) {
                throw new IllegalArgumentException("option --option: JVM " + pid + " already has the aorta agent, writing"
                        + " to " + channel.runningAgentOutput() + ", with its options fixed; give no -o, or aorta detach"
                        + " it and restart the JVM");
            }
            String reply = channel.command(jar, close ? "close" : "capture" + (duration == null ? "" : ",duration=" + duration));
            System.out.println("JVM " + pid + ": " + reply);
        }
        return 0;
    }
}
