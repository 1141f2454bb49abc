package dev.aorta.testing;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * A third-party plugin jar built the way its author would: Java sources compiled with the system compiler
 * against the aorta jars, packed with their {@code META-INF/services} files.
 */
public final class PluginJar {
    private final Map<String, String> sources = new LinkedHashMap<>();
    private final Map<String, List<String>> services = new LinkedHashMap<>();
    private final List<String> classPath = new ArrayList<>();

    /** Adds a compilation unit; {@code className} is its public class's binary name, e.g. {@code com.example.Foo}. */
    public PluginJar source(String className, String code) {
        sources.put(className, code);
        return this;
    }

    /** Lists {@code provider} in {@code META-INF/services/<service>} (it need not exist: a broken plugin). */
    public PluginJar service(String service, String provider) {
        services.computeIfAbsent(service, s -> new ArrayList<>()).add(provider);
        return this;
    }

    /** Compiles against the jar or classes folder that holds {@code type}. */
    public PluginJar against(Class<?>... types) {
        for (Class<?> type : types) {
            classPath.add(location(type).toString());
        }
        return this;
    }

    /** Compiles against {@code jar}. */
    public PluginJar against(Path jar) {
        classPath.add(jar.toString());
        return this;
    }

    /** Compiles in {@code work} (a scratch folder) and writes the jar to {@code jar}; fails with javac's messages. */
    public Path writeTo(Path jar, Path work) throws IOException {
        Path src = Files.createDirectories(work.resolve("src"));
        Path classes = Files.createDirectories(work.resolve("classes"));
        List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "-cp",
                String.join(File.pathSeparator, classPath)));
        for (Map.Entry<String, String> s : sources.entrySet()) {
            Path file = src.resolve(s.getKey().replace('.', '/') + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, s.getValue());
            args.add(file.toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        if (!sources.isEmpty() && javac.run(null, null, errors, args.toArray(String[]::new)) != 0) {
            throw new IllegalStateException("the plugin sources do not compile:\n" + errors.toString(StandardCharsets.UTF_8));
        }
        Files.createDirectories(jar.toAbsolutePath().getParent());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
             Stream<Path> files = Files.walk(classes)) {
            for (Map.Entry<String, List<String>> s : services.entrySet()) {
                out.putNextEntry(new JarEntry("META-INF/services/" + s.getKey()));
                out.write((String.join("\n", s.getValue()) + "\n").getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
                out.write(Files.readAllBytes(f));
                out.closeEntry();
            }
        }
        return jar;
    }

    private static Path location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the class path entry of " + type.getName(), e);
        }
    }
}
