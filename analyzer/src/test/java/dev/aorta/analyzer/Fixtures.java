package dev.aorta.analyzer;

import org.junit.jupiter.api.Assumptions;

import java.net.URISyntaxException;
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

    /** A file of this module's test resources. */
    public static Path resource(String name) {
        try {
            return Path.of(Fixtures.class.getResource("/" + name).toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("test resource " + name + " missing", e);
        }
    }
}
