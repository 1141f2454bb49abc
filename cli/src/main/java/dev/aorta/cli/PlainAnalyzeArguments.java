package dev.aorta.cli;

import java.io.BufferedWriter;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code aorta analyze}'s plain arguments, parsed without picocli's model of the command: trace paths and
 * {@code --name value} or {@code --name=value} of {@link AnalyzeCommand}'s own options, each at most once.
 *
 * <p>picocli builds its model by reading the command's annotations, and the JDK makes each annotation object a
 * dynamic proxy, whose class is generated anew at every start (the AOT cache cannot hold dynamic proxies): 8 proxy
 * classes and 9 method-handle classes for the fields picocli sets, which ran JDK 25's class-file API cold. That was
 * 0.05–0.1 s of a 17 MB trace's 0.4–0.55 s run (docs/benchmarks.md). Anything else — help, version, an unknown
 * option or a misspelt one, a repeated option, a value that starts with "-", a number picocli would reject, an
 * {@code @file}, {@code --} — is left to picocli ({@link #parse} returns null), so every message and every
 * exit code stays picocli's. {@code PlainAnalyzeArgumentsTest} checks that both give the same values, and that
 * the options here are the command's.
 */
final class PlainAnalyzeArguments {
    private PlainAnalyzeArguments() {
    }

    /** The options with a value that {@link #parse} takes, as picocli's model of {@code analyze} names them. */
    static final Set<String> WITH_VALUE = Set.of("--window", "--format", "--top", "--streams", "--repeat",
            "--comm-pattern", "--memory-pattern");
    /** The flags that {@link #parse} takes (help and version are picocli's). */
    static final Set<String> FLAGS = Set.of("--details", "--benchmark", "--verbose");

    /**
     * The command for {@code args} (the words after {@code analyze}), its fields set as picocli would set them, or
     * null when picocli must parse them.
     */
    static AnalyzeCommand parse(List<String> args) {
        AnalyzeCommand c = new AnalyzeCommand();
        List<Path> traces = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.isEmpty() || arg.startsWith("@")) {
                return null;
            }
            if (!arg.startsWith("-")) {
                try {
                    traces.add(Path.of(arg));
                } catch (InvalidPathException e) {
                    return null;
                }
                continue;
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            if (!seen.add(name)) {
                return null;
            }
            if (FLAGS.contains(name) && eq < 0) {
                switch (name) {
                    case "--details" -> c.details = true;
                    case "--benchmark" -> c.benchmark = true;
                    default -> c.verbose = true;
                }
                continue;
            }
            if (!WITH_VALUE.contains(name)) {
                return null;
            }
            String value;
            if (eq >= 0) {
                value = arg.substring(eq + 1);
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                return null;
            }
            if (value.isEmpty() || value.startsWith("-") || value.startsWith("@")) {
                return null;
            }
            try {
                switch (name) {
                    case "--window" -> c.window = value;
                    case "--format" -> c.format = value;
                    case "--top" -> c.top = Integer.valueOf(value);
                    case "--streams" -> c.streams = Integer.valueOf(value);
                    case "--repeat" -> c.repeat = Integer.valueOf(value);
                    case "--comm-pattern" -> c.classes.communication = value;
                    default -> c.classes.memory = value;
                }
            } catch (NumberFormatException e) {
                return null;
            }
        }
        if (traces.isEmpty()) {
            return null;
        }
        c.traces = traces;
        return c;
    }

    /**
     * A writer on {@code stream} as picocli makes its own ({@code CommandLine.newPrintWriter}): buffered, flushed at
     * each line, in the charset that the system property names, else the default one.
     */
    static PrintWriter writer(OutputStream stream, String encodingProperty) {
        return new PrintWriter(new BufferedWriter(new OutputStreamWriter(stream, charset(System.getProperty(encodingProperty)))),
                true);
    }

    /** picocli's {@code CommandLine.charsetForName}. */
    private static Charset charset(String encoding) {
        if (encoding != null) {
            try {
                return Charset.forName("cp65001".equalsIgnoreCase(encoding) ? "UTF-8" : encoding);
            } catch (RuntimeException e) {
                return Charset.defaultCharset();
            }
        }
        return Charset.defaultCharset();
    }
}
