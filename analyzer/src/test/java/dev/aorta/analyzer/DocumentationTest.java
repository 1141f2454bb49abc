package dev.aorta.analyzer;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The repository's documentation stays usable: a short README, no pointers to the design notes outside the
 * repository (docs/ holds what they said), and relative links that lead somewhere. Runs from the module directory, so the repository root is its parent.
 */
class DocumentationTest {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    /** Spelled in two halves so that this file does not name them itself. */
    private static final String DESIGN_NOTES = "DESIGN" + ".md";
    private static final String SHARED = ".." + "/shared/";
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]+)(#[^)]*)?\\)");

    @Test
    void readmeIsAtMost200Lines() throws IOException {
        assertThat(Files.readAllLines(ROOT.resolve("README.md"))).hasSizeLessThanOrEqualTo(200);
    }

    @Test
    void nothingPointsOutsideTheRepository() throws IOException {
        List<String> offenders = new ArrayList<>();
        List<Path> docs = markdown();
        for (Path f : textFiles()) {
            String s = Files.readString(f);
            // the docs must not send readers outside; sources may load test fixtures from beside the repository
            if (s.contains(DESIGN_NOTES) || docs.contains(f) && s.contains(SHARED)) {
                offenders.add(ROOT.relativize(f).toString());
            }
        }
        assertThat(offenders).as("files naming " + DESIGN_NOTES + ", or docs naming " + SHARED).isEmpty();
    }

    @Test
    void relativeLinksInTheDocsResolve() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path f : markdown()) {
            Matcher m = LINK.matcher(Files.readString(f));
            while (m.find()) {
                String target = m.group(1);
                if (target.contains("://") || target.startsWith("mailto:")) {
                    continue;
                }
                if (!Files.exists(f.getParent().resolve(target).normalize())) {
                    broken.add(ROOT.relativize(f) + " -> " + target);
                }
            }
        }
        assertThat(broken).isEmpty();
    }

    private static List<Path> markdown() throws IOException {
        List<Path> out = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("samples/README.md")));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
        }
        return out;
    }

    /** README, docs, and every Java source and test resource text of the modules. */
    private static List<Path> textFiles() throws IOException {
        List<Path> out = new ArrayList<>(markdown());
        try (Stream<Path> s = Files.walk(ROOT)) {
            s.filter(p -> {
                String rel = ROOT.relativize(p).toString();
                return !rel.startsWith(".") && !rel.contains("/target/") && !rel.startsWith("dist/")
                        && rel.contains("/src/") && (rel.endsWith(".java") || rel.endsWith(".md"));
            }).forEach(out::add);
        }
        return out;
    }
}
