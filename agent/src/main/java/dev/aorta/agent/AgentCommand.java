package dev.aorta.agent;

import dev.aorta.agent.capture.CaptureWindows;
import dev.aorta.agent.capture.Durations;
import dev.aorta.agent.pipeline.Drainer;

/**
 * A command to an agent already running, sent as the agent argument of a later attach ({@code aorta capture},
 * {@code aorta detach}): {@code command=capture[,duration=5s]}, {@code command=close}, {@code command=detach}.
 * The Attach API carries no message back, so the answer (or the refusal) is left in the system property
 * {@link #REPLY_PROPERTY}, which the CLI reads; a refusal also fails the attach.
 */
final class AgentCommand {
    static final String PREFIX = "command=";
    static final String REPLY_PROPERTY = "aorta.agent.reply";

    private AgentCommand() {
    }

    static boolean isCommand(String args) {
        return args != null && args.trim().startsWith(PREFIX);
    }

    /** Runs it; an {@link IllegalStateException} or {@link IllegalArgumentException} is the refusal, in one line. */
    static void run(String args, Drainer drainer) {
        String reply;
        try {
            reply = execute(args.trim(), drainer);
        } catch (IllegalStateException | IllegalArgumentException e) {
            System.setProperty(REPLY_PROPERTY, "refused: " + e.getMessage());
            AgentLog.info(e.getMessage());
            throw e;
        }
        System.setProperty(REPLY_PROPERTY, reply);
        AgentLog.info(reply);
    }

    private static String execute(String args, Drainer drainer) {
        String command = null;
        long durationNs = 0;
        for (String part : args.split(",")) {
            int eq = part.indexOf('=');
            String key = eq < 0 ? part.trim() : part.substring(0, eq).trim();
            String value = eq < 0 ? "" : part.substring(eq + 1).trim();
            switch (key) {
                case "command" -> command = value;
                case "duration" -> {
                    durationNs = Durations.parseNs(value);
                    if (durationNs <= 0) {
                        throw new IllegalArgumentException("duration: expected a duration such as 5s or 500ms, got '"
                                + value + "'");
                    }
                }
                default -> throw new IllegalArgumentException("unknown command argument '" + key
                        + "'; expected command=capture|close|detach and duration=");
            }
        }
        CaptureWindows windows = CaptureWindows.current;
        if (drainer == null || windows == null) {
            throw new IllegalStateException("the agent in this JVM did not start (see its stderr)");
        }
        return switch (command == null ? "" : command) {
            case "capture" -> windows.open("aorta capture", durationNs);
            case "close" -> windows.close();
            case "detach" -> {
                drainer.shutdown();
                yield "detached: recording stopped and files flushed in "
                        + System.getProperty(AgentInstaller.OUTPUT_PROPERTY, "?")
                        + (windows.takeAdviceOut() ? " (the recording advice is taken out)"
                        : " (the woven calls stay, at one flag read each)");
            }
            default -> throw new IllegalArgumentException("unknown command '" + command + "'; expected capture, close or detach");
        };
    }
}
