package dev.aorta.analyzer;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shared real traces: {@code ../shared/fixtures} relative to the repository root (CI clones the repository with
 * {@code shared/} beside it). Tests using them are skipped, with a message saying why, when the folder is missing.
 */
public final class Fixtures {
    private Fixtures() {
    }

    public static Path dir() {
        // tests run in the module directory (analyzer/), whose parent is the repository root
        Path dir = Path.of("").toAbsolutePath().getParent().resolve("../shared/fixtures").normalize();
        Assumptions.assumeTrue(Files.isDirectory(dir),
                "shared trace fixtures not found at " + dir + " (expected ../shared/fixtures beside the repository); skipped");
        return dir;
    }

    public static Path file(String relative) {
        Path p = dir().resolve(relative);
        Assumptions.assumeTrue(Files.isRegularFile(p), "fixture " + p + " missing; skipped");
        return p;
    }

    /**
     * A file of this module's test resources. Other modules' tests (the cli's) read them from this module's test jar,
     * where they are no files: then they are copied out once, into a folder removed when the JVM exits.
     */
    public static Path resource(String name) {
        URL url = Fixtures.class.getResource("/" + name);
        if (url == null) {
            throw new IllegalStateException("test resource " + name + " missing");
        }
        try {
            if (url.getProtocol().equals("file")) {
                return Path.of(url.toURI());
            }
            Path copy = extracted().resolve(name);
            if (!Files.exists(copy)) {
                Files.createDirectories(copy.getParent());
                // deleteOnExit removes in reverse order of registration: the file, then its folders, deepest first
                Path folder = extracted();
                for (Path part : extracted().relativize(copy.getParent())) {
                    folder = folder.resolve(part);
                    folder.toFile().deleteOnExit();
                }
                try (InputStream in = url.openStream()) {
                    Files.copy(in, copy);
                }
                copy.toFile().deleteOnExit();
            }
            return copy;
        } catch (URISyntaxException | IOException e) {
            throw new IllegalStateException("test resource " + name + " unreadable: " + e.getMessage(), e);
        }
    }

    private static Path extractedDir;

    private static synchronized Path extracted() throws IOException {
        if (extractedDir == null) {
            extractedDir = Files.createTempDirectory("aorta-fixtures");
            extractedDir.toFile().deleteOnExit();
        }
        return extractedDir;
    }
}
