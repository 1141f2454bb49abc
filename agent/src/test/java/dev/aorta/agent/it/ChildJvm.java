package dev.aorta.agent.it;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts a test "application" in a fresh JVM, optionally with {@code -javaagent:} the shaded agent jar
 * the build produced. Its class path holds the test doubles (JCuda-shaped, aorta-gpu-shaped), the
 * aorta-api jar, aorta-core and, behind the doubles, aorta-gpu (whose {@code CuptiRecords} the fake CUPTI
 * tracer feeds): never the real JCuda, never the agent's unshaded classes.
 */
final class ChildJvm {
    static final Path AGENT_JAR = Path.of(System.getProperty("aorta.agent.jar", "target/aorta-agent-shaded.jar"));
    /** A Java 17 runtime when the machine has one (the agent must load into Java 17 applications). */
    static final Path JAVA_17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");

    record Result(int exitCode, String stdout, String stderr) {
        List<String> lines(String prefix) {
            return stdout.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length())).toList();
        }

        /** The number after {@code prefix + " "} on a line of stdout. */
        long number(String prefix) {
            return stdout.lines().filter(l -> l.startsWith(prefix + " "))
                    .mapToLong(l -> Long.parseLong(l.substring(prefix.length() + 1).trim())).findFirst()
                    .orElseThrow(() -> new AssertionError("no line '" + prefix + " <n>' in\n" + stdout));
        }

        long address(String name) {
            return stdout.lines().filter(l -> l.startsWith("STREAM " + name + " ") || l.startsWith("EVENT " + name + " "))
                    .mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))).findFirst()
                    .orElseThrow(() -> new AssertionError("no address for " + name + " in\n" + stdout));
        }
    }

    static Path javaHome(boolean preferJava17) {
        if (preferJava17 && Files.isExecutable(JAVA_17.resolve("bin/java"))) {
            return JAVA_17;
        }
        return Path.of(System.getProperty("java.home"));
    }

    static String classPath() {
        return String.join(File.pathSeparator, location(ChildJvm.class), location(dev.aorta.api.Aorta.class),
                location(dev.aorta.core.event.DeviceActivity.class),
                location(dev.aorta.gpu.cupti.CuptiRecords.class),
                location(com.fasterxml.jackson.core.JsonFactory.class));
    }

    private static String location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs {@code main} with the agent ({@code agentArgs} null = without the agent). */
    static Result run(Path javaHome, String agentArgs, String main, String... args) throws IOException, InterruptedException {
        return runWith(javaHome, List.of(), agentArgs, main, args);
    }

    static Result runWith(Path javaHome, List<String> jvmOptions, String agentArgs, String main, String... args)
            throws IOException, InterruptedException {
        return finish(startWith(javaHome, jvmOptions, agentArgs, main, args));
    }

    static Process start(Path javaHome, String agentArgs, String main, String... args) throws IOException {
        return startWith(javaHome, List.of(), agentArgs, main, args);
    }

    /** With extra JVM options (e.g. -XX:StartFlightRecording) before the agent. */
    static Process startWith(Path javaHome, List<String> jvmOptions, String agentArgs, String main, String... args)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaHome.resolve("bin/java").toString());
        cmd.add("-Xshare:auto");
        cmd.addAll(jvmOptions);
        if (agentArgs != null) {
            cmd.add("-javaagent:" + AGENT_JAR.toAbsolutePath() + (agentArgs.isEmpty() ? "" : "=" + agentArgs));
        }
        cmd.add("-cp");
        cmd.add(classPath());
        cmd.add(main);
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("AORTA_") || k.equals("RANK") || k.equals("LOCAL_RANK"));
        return pb.start();
    }

    static Result finish(Process p) throws IOException, InterruptedException {
        // read both pipes concurrently so that neither fills up and blocks the child
        StringBuilder err = new StringBuilder();
        Thread errReader = new Thread(() -> {
            try {
                err.append(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException ignored) {
                // the child died; what was read is what there is
            }
        });
        errReader.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("child JVM did not finish in 120 s");
        }
        errReader.join();
        return new Result(p.exitValue(), out, err.toString());
    }
}
