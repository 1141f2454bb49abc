package dev.aorta.analyzer.fuzz;

import dev.aorta.analyzer.Fixtures;
import dev.aorta.analyzer.metrics.AnalysisOptions;
import dev.aorta.analyzer.metrics.TraceAnalysis;
import dev.aorta.analyzer.metrics.WindowMode;
import dev.aorta.analyzer.metrics.WindowReport;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.core.metric.ActivityClassifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Damaged traces never give a wrong result silently. Each sample trace of the repository (Kineto CUDA and ROCm,
 * rocprofv3 CSV, agent JSONL) is damaged in the ways real files get damaged (a timestamp that is not a number or
 * overflows, a negative duration, a device record without "ts" or with "ph":"B", a step number beyond 64 bits,
 * invalid UTF-8 in a name, a negative or decimal timestamp, a byte-order mark, a file cut short, plain or gzip, a
 * byte of gzip data flipped),
 * at a place a seeded random generator picks, and analysed. Every damaged input must either give the undamaged
 * numbers, or give numbers together with a warning naming the file, or fail with one sentence naming the file.
 * Seeded, so a failure is reproduced by its seed; bounded in time, so it fits a loaded build machine.
 */
class DamagedTraceFuzzTest {
    /** The build's seed; {@code -Daorta.fuzz.seed=N} explores other places (a failure names its case seed). */
    private static final long SEED = Long.getLong("aorta.fuzz.seed", 17);
    private static final int PLACES_PER_DAMAGE = 20;
    private static final Duration BUDGET = Duration.ofSeconds(30);
    private static final Path SAMPLES = Path.of("").toAbsolutePath().getParent().resolve("samples");

    @TempDir
    Path tmp;

    /** One way of damaging a trace's text (bytes as Latin-1 chars, so a byte is a char). */
    private record Damage(String name, BiFunction<String, Random, String> apply) {
    }

    /** Replaces the match of {@code regex} at a random one of its occurrences; null when it does not occur. */
    private static Damage at(String name, String regex, String replacement) {
        Pattern p = Pattern.compile(regex);
        return new Damage(name, (text, random) -> {
            List<int[]> found = new ArrayList<>();
            Matcher m = p.matcher(text);
            while (m.find()) {
                found.add(new int[] {m.start(), m.end()});
            }
            if (found.isEmpty()) {
                return null;
            }
            int[] at = found.get(random.nextInt(found.size()));
            Matcher one = p.matcher(text.substring(at[0], at[1]));
            return text.substring(0, at[0]) + one.replaceFirst(replacement) + text.substring(at[1]);
        });
    }

    private static final List<Damage> DAMAGES = List.of(
            at("kineto ts not a number", "\"ts\":\\s*[0-9.]+", "\"ts\": \"abc\""),
            at("kineto ts NaN", "\"ts\":\\s*[0-9.]+", "\"ts\": \"NaN\""),
            at("kineto ts beyond long", "\"ts\":\\s*[0-9.]+", "\"ts\": 99999999999999999999"),
            at("kineto ts overflows as ns", "\"ts\":\\s*[0-9.]+", "\"ts\": 9300000000000000"),
            at("kineto negative dur", "\"dur\":\\s*([0-9.]+)", "\"dur\": -$1"),
            at("kineto no ts", "\"ts\":\\s*[0-9.]+,", ""),
            at("kineto ph B", "\"ph\":\\s*\"X\"", "\"ph\": \"B\""),
            at("kineto grid beyond int", "\"grid\":\\s*\\[", "\"grid\": [99999999999, "),
            at("kineto correlation beyond long", "\"correlation\":\\s*\\d+", "\"correlation\": 99999999999999999999"),
            at("kineto step beyond long", "ProfilerStep#\\d+", "ProfilerStep#99999999999999999999"),
            at("invalid UTF-8 in a name", "\"name\":\\s*\"", "\"name\": \"\u00ff\u00c3("),
            at("csv negative timestamp", ",(\\d{13,}),(\\d{13,}),", ",-$1,$2,"),
            at("csv decimal timestamp", ",(\\d{13,}),", ",$1.0,"),
            at("csv timestamp not a number", ",(\\d{13,}),", ",abc,"),
            at("csv name with invalid UTF-8", ",\"void ", ",\"\u00ff\u00fevoid "),
            at("rocprofv3 JSON no start_timestamp", "\"start_timestamp\":\\d+,", ""),
            at("rocprofv3 JSON negative start_timestamp", "\"start_timestamp\":(\\d+)", "\"start_timestamp\":-$1"),
            at("rocprofv3 JSON start_timestamp not a number", "\"start_timestamp\":\\d+", "\"start_timestamp\":\"abc\""),
            at("rocprofv3 JSON number beyond long", "\"(bytes|thread_id|kernel_id|operation)\":\\d+",
                    "\"$1\":99999999999999999999"),
            at("rocprofv3 JSON text for a number", "\"(bytes|thread_id|kernel_id|operation)\":\\d+", "\"$1\":\"x\""),
            at("rocprofv3 JSON without kernel symbols", ",\\s*\"kernel_symbols\":\\[[^\\]]*\\]", ""),
            at("agent end in the far future", "\"end\":\\d+", "\"end\":9000000000000000000"),
            at("agent start at -5", "\"start\":\\d+", "\"start\":-5"),
            at("agent start not a number", "\"start\":\\d+", "\"start\":\"abc\""),
            at("agent no start", "\"start\":\\d+,", ""),
            at("agent end before start", "\"end\":\\d+", "\"end\":1"),
            new Damage("UTF-8 byte-order mark", (text, random) -> "\u00ef\u00bb\u00bf" + text),
            new Damage("cut short", DamagedTraceFuzzTest::cutInsideALine));

    /**
     * The text cut at a random place inside a line: a CSV or JSONL file cut right after a line end is a complete,
     * shorter file, which no reader can tell from one that was meant to end there.
     */
    private static String cutInsideALine(String text, Random random) {
        int at = 1 + random.nextInt(text.length() - 1);
        while (at < text.length() - 1 && text.charAt(at - 1) == '\n') {
            at++;
        }
        return text.substring(0, at);
    }

    private record Sample(String name, String text) {
    }

    private static List<Sample> samples() throws IOException {
        List<Sample> out = new ArrayList<>();
        // no rocprofv3 results.json is small enough for the samples folder: this module's own small one
        out.add(new Sample("small_results.json", Files.readString(Fixtures.resource("rocprof/small_results.json"),
                StandardCharsets.ISO_8859_1)));
        for (String s : List.of("traces/mi250-minitoy/mi250_minitoy_rocm6.2.json.gz",
                "traces/a100-event-sync/a100_event_sync_3streams.json.gz", "traces/rocprofv3-doc/doc_kernel_trace.csv",
                "agent/gpu-streams-example/rank_0_activity.jsonl")) {
            Path p = SAMPLES.resolve(s);
            byte[] bytes;
            try (InputStream in = s.endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(p))
                    : Files.newInputStream(p)) {
                bytes = in.readAllBytes();
            }
            out.add(new Sample(p.getFileName().toString().replace(".gz", ""),
                    new String(bytes, StandardCharsets.ISO_8859_1)));
        }
        return out;
    }

    /** What a trace gives: its numbers per window, its warnings, or the one-sentence error. */
    private record Outcome(List<String> numbers, List<String> warnings, String error) {
    }

    private static Outcome analyse(Path file) {
        try {
            TraceAnalysis a = TraceAnalysis.of(TraceLoader.withInstalledReaders().load(List.of(file)),
                    new AnalysisOptions(WindowMode.STEPS, ActivityClassifier.defaults(), 5));
            List<String> numbers = new ArrayList<>();
            for (WindowReport r : a.windows()) {
                numbers.add(r.rank() + " " + r.window() + " " + r.overlap());
            }
            return new Outcome(numbers, a.warnings(), null);
        } catch (IOException e) {
            return new Outcome(List.of(), List.of(), e.getMessage());
        }
    }

    private Path write(String name, String text, boolean gzip) throws IOException {
        Path dir = Files.createTempDirectory(tmp, "case");
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        if (!gzip) {
            return Files.write(dir.resolve(name), bytes);
        }
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(bytes);
        }
        return Files.write(dir.resolve(name + ".gz"), gz.toByteArray());
    }

    @Test
    void noDamagedTraceGivesAWrongResultSilently() {
        assertTimeoutPreemptively(BUDGET.plusSeconds(20), () -> {
            long deadline = System.nanoTime() + BUDGET.toNanos();
            Random random = new Random(SEED);
            int cases = 0;
            for (Sample s : samples()) {
                Outcome clean = analyse(write(s.name(), s.text(), false));
                assertThat(clean.error()).as(s.name() + " undamaged").isNull();
                assertThat(clean.numbers()).as(s.name() + " undamaged").isNotEmpty();
                for (Damage d : DAMAGES) {
                    for (int place = 0; place < PLACES_PER_DAMAGE && System.nanoTime() < deadline; place++) {
                        long caseSeed = random.nextLong();
                        String damaged = d.apply().apply(s.text(), new Random(caseSeed));
                        if (damaged == null) {
                            break;  // this damage does not apply to this format
                        }
                        // every other cut is of the gzip data, and stands for a byte flipped in it too
                        boolean gzip = place % 2 == 1 && d.name().equals("cut short");
                        Path file = gzip ? write(s.name(), s.text(), true) : write(s.name(), damaged, false);
                        if (gzip) {
                            byte[] whole = Files.readAllBytes(file);
                            Random r = new Random(caseSeed);
                            Files.write(file, java.util.Arrays.copyOf(whole, 10 + r.nextInt(whole.length - 10)));
                            check(s.name() + ", gzip cut short, case seed " + caseSeed, file, clean);
                            whole[r.nextInt(whole.length)] ^= (byte) (1 + r.nextInt(255));
                            Files.write(file, whole);
                            check(s.name() + ", gzip byte flipped, case seed " + caseSeed, file, clean);
                        } else {
                            check(s.name() + ", " + d.name() + ", case seed " + caseSeed, file, clean);
                        }
                        cases++;
                    }
                }
            }
            assertThat(cases).as("damaged traces tried").isGreaterThan(50);
        });
    }

    private static void check(String what, Path file, Outcome clean) {
        Outcome damaged;
        try {
            damaged = analyse(file);
        } catch (RuntimeException | StackOverflowError e) {
            fail(what + ": crashed with " + e, e);
            return;
        }
        String name = file.getFileName().toString();
        if (damaged.error() != null) {
            assertThat(damaged.error()).as(what + ": the error is one sentence naming the file")
                    .contains(name).doesNotContain("\n").doesNotContain("Exception");
            return;
        }
        if (damaged.numbers().equals(clean.numbers())) {
            return;
        }
        List<String> news = damaged.warnings().stream().filter(w -> !clean.warnings().contains(w)).toList();
        assertThat(news).as(what + ": numbers changed (" + clean.numbers() + " -> " + damaged.numbers()
                + "), so a warning must name the file and what was skipped").anySatisfy(w -> assertThat(w).contains(name));
    }
}
