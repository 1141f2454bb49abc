package dev.aorta.workloads.overhead;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the B runs add: our agent ({@code -javaagent:JAR=OPTIONS} through {@code AORTA_JAVA_OPTS}, which
 * {@code bin/aorta} puts on its java command line) and/or a library preloaded with {@code LD_PRELOAD}.
 * Both are checked before any run.
 *
 * @param agentOptions null without the agent; may be empty (the agent's defaults)
 */
public record Interposer(String agentOptions, Path agentJar, Path preload) {
    static final String JAVA_OPTS = "AORTA_JAVA_OPTS";
    static final String PRELOAD = "LD_PRELOAD";

    /**
     * @throws IllegalArgumentException naming the option, when there is nothing to add, the agent jar is missing,
     *                                  or the library does not exist or does not load
     */
    public static Interposer checked(String agentOptions, Path agentJar, Path preload) {
        if (agentOptions == null && preload == null) {
            throw new IllegalArgumentException("nothing to compare: give --agent OPTIONS and/or --preload LIB for the B runs");
        }
        if (agentOptions != null && !Files.isRegularFile(agentJar)) {
            throw new IllegalArgumentException("--agent: the agent jar " + agentJar + " does not exist (build it with "
                    + "./build package, or name it with --agent-jar)");
        }
        if (preload != null) {
            requireLoadable(preload);
        }
        return new Interposer(agentOptions, agentJar, preload);
    }

    /** dlopen through FFM, so that a missing dependency or a wrong architecture shows now, not in every B run. */
    private static void requireLoadable(Path library) {
        if (!Files.isRegularFile(library)) {
            throw new IllegalArgumentException("--preload " + library + ": no such file");
        }
        try (Arena arena = Arena.ofConfined()) {
            SymbolLookup.libraryLookup(library.toAbsolutePath(), arena);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--preload " + library + ": cannot be loaded as a shared library ("
                    + e.getMessage() + ")", e);
        }
    }

    /** The B runs' environment: {@code base} with the agent appended to the java options and the library preloaded. */
    public Map<String, String> environmentB(Map<String, String> base) {
        Map<String, String> env = new LinkedHashMap<>(base);
        if (agentOptions != null) {
            String agent = "-javaagent:" + agentJar.toAbsolutePath() + (agentOptions.isEmpty() ? "" : "=" + agentOptions);
            String existing = base.get(JAVA_OPTS);
            env.put(JAVA_OPTS, existing == null || existing.isBlank() ? agent : existing + " " + agent);
        }
        if (preload != null) {
            String existing = base.get(PRELOAD);
            String lib = preload.toAbsolutePath().toString();
            env.put(PRELOAD, existing == null || existing.isBlank() ? lib : lib + ":" + existing);
        }
        return env;
    }

    public String describe() {
        StringBuilder s = new StringBuilder();
        if (agentOptions != null) {
            s.append("agent ").append(agentJar).append(agentOptions.isEmpty() ? " (default options)" : " with " + agentOptions);
        }
        if (preload != null) {
            s.append(s.isEmpty() ? "" : " + ").append("LD_PRELOAD=").append(preload);
        }
        return s.toString();
    }
}
