package dev.aorta.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code aorta attach <pid>}: loads the profiling agent into a running JVM through the Attach API. The
 * options are checked first, by the agent's own option parser loaded from the agent jar in a class
 * loader of its own, so that a typo is reported here rather than in the target's stderr.
 */
@Command(name = "attach", mixinStandardHelpOptions = true, description = {
        "Attach the profiling agent to a running JVM (same user, Java 17+).",
        "Classes already loaded are retransformed; JavaCPP-style native methods need -javaagent instead."})
final class AttachCommand implements Callable<Integer> {
    /** Options holding paths: made absolute here, because the target JVM has its own working directory. */
    private static final Set<String> PATH_OPTIONS = Set.of("output", "config", "jfr");

    @Parameters(index = "0", paramLabel = "PID", description = "process id of the target JVM")
    long pid;

    @Option(names = {"-o", "--option"}, paramLabel = "KEY=VALUE",
            description = "an agent option (repeatable), e.g. -o output=prof -o bind-collectives=true")
    List<String> options = new ArrayList<>();

    @Option(names = "--config", paramLabel = "FILE", description = "a .properties or YAML file of agent options")
    Path config;

    @Option(names = "--agent-jar", paramLabel = "JAR", description = "default: lib/aorta-agent.jar of this installation")
    Path agentJar;

    @Option(names = "--verbose", description = "print stack traces of failures")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
        Path jar = AgentChannel.agentJar(agentJar);
        String args = agentArguments();
        validate(jar, args);
        try (AgentChannel channel = AgentChannel.open(pid)) {
            String output = channel.runningAgentOutput();
            if (output != null) {
                // loading it again would be ignored by the agent: say so instead of reporting success
                throw new IllegalStateException("JVM " + pid + " already has the aorta agent, writing to " + output
                        + "; aorta capture " + pid + " opens a window, aorta detach " + pid + " stops it");
            }
            channel.start(jar, args);
        }
        System.out.println("aorta agent attached to JVM " + pid + (args.isEmpty() ? "" : " with " + args));
        return 0;
    }

    /** The {@code key=value,...} string, paths made absolute. */
    String agentArguments() {
        List<String> parts = new ArrayList<>();
        if (config != null) {
            parts.add("config=" + config.toAbsolutePath());
        }
        for (String o : options) {
            int eq = o.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("option --option: expected KEY=VALUE, got '" + o + "'");
            }
            if (o.indexOf(',') >= 0) {
                throw new IllegalArgumentException("option --option: '" + o
                        + "' contains ',' (give each option its own -o; lists use '+', e.g. record=launch+copy)");
            }
            String key = o.substring(0, eq);
            String value = o.substring(eq + 1);
            parts.add(PATH_OPTIONS.contains(key) && !value.isEmpty() ? key + "=" + Path.of(value).toAbsolutePath() : o);
        }
        return String.join(",", parts);
    }

    /** Runs the agent's own validation (unknown options, bad values) without starting anything. */
    static void validate(Path jar, String args) throws Exception {
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            Class<?> options = Class.forName("dev.aorta.agent.config.AgentOptions", true, loader);
            options.getMethod("validate", String.class).invoke(null, args);
        } catch (InvocationTargetException e) {
            throw new IllegalArgumentException(e.getCause().getMessage());
        }
    }
}
