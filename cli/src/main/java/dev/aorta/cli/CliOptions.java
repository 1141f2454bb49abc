package dev.aorta.cli;

import dev.aorta.analyzer.metrics.WindowMode;
import dev.aorta.analyzer.read.TraceSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/** Option parsing and helpers shared by the analyzer's commands. */
final class CliOptions {
    /**
     * The locale the text reports format numbers in: none. {@link java.util.Formatter} applies no localization for a
     * null locale — digits 0-9, '.', '-' and ',', as {@code Locale.ROOT} gives them — and so does not load the JDK's
     * locale data (the CLDR providers and format bundles), which the first number formatted for a locale did: about
     * 9 ms of each short run, a quarter of a 17 MB trace's text output (docs/benchmarks.md).
     */
    static final Locale NO_LOCALE = null;

    private CliOptions() {
    }

    static WindowMode windowMode(String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "steps", "step", "iterations" -> WindowMode.STEPS;
            case "whole" -> WindowMode.WHOLE;
            case "ranges", "range" -> WindowMode.RANGES;
            case "captures", "capture", "windows" -> WindowMode.CAPTURES;
            default -> throw new IllegalArgumentException("--window: '" + value + "' is not one of steps, whole, ranges,"
                    + " captures");
        };
    }

    static boolean isJson(String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "json" -> true;
            case "text" -> false;
            default -> throw new IllegalArgumentException("--format: '" + value + "' is not one of text, json");
        };
    }

    /** The uncompressed size of the inputs, for throughput figures (gzip files are inflated to count). */
    static long uncompressedBytes(List<Path> paths) throws IOException {
        long total = 0;
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> walk = Files.walk(p)) {
                    for (Path f : walk.filter(Files::isRegularFile).toList()) {
                        total += uncompressedBytes(List.of(f));
                    }
                }
                continue;
            }
            TraceSource s = TraceSource.of(p);
            if (!s.isGzip()) {
                total += Files.size(p);
                continue;
            }
            try (InputStream in = s.open()) {
                byte[] buf = new byte[1 << 16];
                int n;
                while ((n = in.read(buf)) > 0) {
                    total += n;
                }
            } catch (java.io.EOFException truncated) {
                // count what could be inflated
            }
        }
        return total;
    }
}
