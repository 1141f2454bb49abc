package dev.aorta.agent;

import dev.aorta.agent.spi.InterceptionPlugin;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The agent's optional plugins: the jars in {@code plugins/} beside the folder that holds the agent jar, i.e.
 * {@code <dist>/plugins/*.jar} for {@code <dist>/lib/aorta-agent.jar}.
 *
 * <p>Only jars that declare an {@link InterceptionPlugin} in {@code META-INF/services} are taken: the folder also
 * holds the CLI's plugins (workloads, trace readers, analyses), which must never reach the application. The
 * jars taken are added where the JVM put the agent jar itself, the system class loader's search
 * ({@link java.lang.instrument.Instrumentation#appendToSystemClassLoaderSearch}), because a plugin's advice is
 * inlined into the application's classes and resolves its helpers and the recorder from there. The
 * application's own class path ({@code -cp}, {@code java.class.path}) stays as it was.
 */
final class PluginFolder {
    static final String SERVICE_FILE = "META-INF/services/" + InterceptionPlugin.class.getName();

    private PluginFolder() {
    }

    /** Makes the interception plugins in {@code folder} visible to the agent's {@link java.util.ServiceLoader}. */
    static void install(Path folder, Instrumentation inst) {
        for (JarFile jar : interceptionJars(folder, AgentLog::error)) {
            try {
                inst.appendToSystemClassLoaderSearch(jar);
                AgentLog.debug("plugin jar " + jar.getName() + " added");
            } catch (UnsupportedOperationException e) {
                AgentLog.error("plugin jar " + jar.getName() + " skipped: this JVM's system class loader cannot be"
                        + " extended (" + e.getMessage() + ")");
            }
        }
    }

    /** The plugins folder of the running agent, or null (see {@link #besideAgentJar}). */
    static Path ofThisAgent() {
        CodeSource code = PluginFolder.class.getProtectionDomain().getCodeSource();
        return besideAgentJar(code == null ? null : code.getLocation());
    }

    /**
     * {@code plugins/} beside the folder of the agent jar at {@code agentLocation}; null when the agent runs from a
     * classes folder (its own build) or its location is unknown.
     */
    static Path besideAgentJar(URL agentLocation) {
        if (agentLocation == null) {
            return null;
        }
        try {
            Path agent = Path.of(agentLocation.toURI());
            Path folder = agent.toAbsolutePath().getParent();
            if (!Files.isRegularFile(agent) || folder == null || folder.getParent() == null) {
                return null;
            }
            return folder.getParent().resolve("plugins");
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The jars in {@code folder} (by name) that declare interception plugins, opened; none when {@code folder} is
     * null or absent. A file that is not a readable jar costs one line to {@code problems} and is skipped.
     */
    static List<JarFile> interceptionJars(Path folder, Consumer<String> problems) {
        List<JarFile> jars = new ArrayList<>();
        if (folder == null || !Files.isDirectory(folder)) {
            return jars;
        }
        List<Path> files;
        try (Stream<Path> list = Files.list(folder)) {
            files = list.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().toList();
        } catch (IOException e) {
            problems.accept("plugins folder " + folder + " skipped: it cannot be listed (" + e.getMessage() + ")");
            return jars;
        }
        for (Path file : files) {
            JarFile jar;
            try {
                jar = new JarFile(file.toFile());
            } catch (IOException | SecurityException e) {
                problems.accept("plugin jar " + file + " skipped: it is not a readable jar (" + e.getMessage() + ")");
                continue;
            }
            if (jar.getEntry(SERVICE_FILE) != null) {
                jars.add(jar);
            } else {
                close(jar);
            }
        }
        return jars;
    }

    private static void close(JarFile jar) {
        try {
            jar.close();
        } catch (IOException ignored) {
            // only read its directory; nothing to lose
        }
    }
}
