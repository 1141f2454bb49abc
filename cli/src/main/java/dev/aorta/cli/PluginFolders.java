package dev.aorta.cli;

import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Where the CLI's plugins come from: the jars in {@code $aorta.home/plugins} (bin/aorta sets {@code aorta.home})
 * and in the folders (or jars) listed in {@code AORTA_PLUGINS}, separated like a class path. Every command looks
 * its workloads, trace readers and analyses up with {@link java.util.ServiceLoader} in the thread's context class
 * loader, so one class loader over these jars serves list, run, analyze, report and merge alike.
 */
final class PluginFolders {
    static final String ENV = "AORTA_PLUGINS";

    /** A folder of jars or one jar; {@code named} when the user asked for it, so that its absence is worth a line. */
    private record Place(Path path, boolean named) {
    }

    private final List<Place> places;

    private PluginFolders(List<Place> places) {
        this.places = places;
    }

    /** {@code home}/plugins (when {@code home} is set) and each entry of {@code env} (when set). */
    static PluginFolders of(String home, String env) {
        List<Place> places = new ArrayList<>();
        if (home != null && !home.isBlank()) {
            places.add(new Place(Path.of(home, "plugins"), false));
        }
        if (env != null) {
            for (String entry : env.split(File.pathSeparator)) {
                if (!entry.isBlank()) {
                    places.add(new Place(Path.of(entry.strip()), true));
                }
            }
        }
        return new PluginFolders(places);
    }

    /**
     * The readable plugin jars, folder by folder and by name within one. A missing {@code plugins/} folder is
     * simply empty; an {@code AORTA_PLUGINS} entry that does not exist, and a file that is not a jar, cost one
     * line to {@code problems} and are skipped.
     */
    List<Path> jars(Consumer<String> problems) {
        List<Path> jars = new ArrayList<>();
        for (Place p : places) {
            Path place = p.path();
            if (Files.isRegularFile(place)) {
                addIfJar(place, jars, problems);
            } else if (Files.isDirectory(place)) {
                try (Stream<Path> files = Files.list(place)) {
                    files.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted()
                            .forEach(f -> addIfJar(f, jars, problems));
                } catch (IOException e) {
                    problems.accept("plugins folder " + place + " skipped: it cannot be listed (" + e.getMessage() + ")");
                }
            } else if (p.named()) {
                problems.accept(ENV + " entry " + place + " skipped: no such folder or jar");
            }
        }
        return jars;
    }

    /** A class loader over the plugin jars whose parent is {@code parent}; {@code parent} itself when there are none. */
    ClassLoader loader(ClassLoader parent, Consumer<String> problems) {
        List<Path> jars = jars(problems);
        if (jars.isEmpty()) {
            return parent;
        }
        List<URL> urls = new ArrayList<>();
        for (Path jar : jars) {
            try {
                urls.add(jar.toUri().toURL());
            } catch (MalformedURLException e) {
                problems.accept("plugin jar " + jar + " skipped: its path is not a valid URL (" + e.getMessage() + ")");
            }
        }
        return new URLClassLoader("aorta-plugins", urls.toArray(URL[]::new), parent);
    }

    private static void addIfJar(Path file, List<Path> jars, Consumer<String> problems) {
        try (JarFile ignored = new JarFile(file.toFile())) {
            jars.add(file);
        } catch (IOException | SecurityException e) {
            problems.accept("plugin jar " + file + " skipped: it is not a readable jar (" + e.getMessage() + ")");
        }
    }
}
