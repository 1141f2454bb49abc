package dev.aorta.agent.capture;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as written in options and commands: {@code 30s}, {@code 500ms}, {@code 2m}, {@code 1.5s}. */
public final class Durations {
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

    private Durations() {
    }

    /** Nanoseconds, or -1 when {@code text} is not a duration. */
    public static long parseNs(String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            return -1;
        }
        double unitNs = switch (m.group(2)) {
            case "ms" -> 1e6;
            case "s" -> 1e9;
            case "m" -> 60e9;
            default -> 3600e9;
        };
        return Math.round(Double.parseDouble(m.group(1)) * unitNs);
    }

    public static String format(long ns) {
        return ns < 1_000_000_000L ? (ns / 1_000_000) + "ms"
                : String.format(Locale.ROOT, "%.1fs", ns / 1e9);
    }
}
