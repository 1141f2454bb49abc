package dev.aorta.analyzer.read;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import dev.aorta.core.metric.TrainerRunSummary;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The per-step fields that AORTA's {@code overlap_report.py} reads from a directory's {@code rank_*_metrics.jsonl}
 * (AORTA's trainer, ours, or the agent's): {@code loss} and the recorded {@code profile.overlap} block, taken as
 * written rather than recomputed from the ranges, so that a summary built from them matches AORTA's report
 * (docs/metrics.md#trainer-run-summary). {@link AortaMetricsReader} turns the same files into device activity.
 *
 * <p>A missing field inside {@code overlap_ms} or {@code per_stream_ms} counts as 0 and a null loss as none, as
 * AORTA reads them; a line without those two blocks, or that is not JSON, is an error naming the file and line. A
 * last line without its newline is what a killed writer leaves: it is skipped with a warning.
 */
public final class TrainerMetricsDirectory {
    // Python's json module writes a NaN loss as NaN
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
    private static final String OVERLAP = "profile.overlap.";

    /** The steps of every file, in file-name order, and what was skipped. */
    public record Steps(List<Path> files, List<TrainerRunSummary.Step> steps, List<String> warnings) {
    }

    private TrainerMetricsDirectory() {
    }

    /** Whether the directory holds any {@code rank_*_metrics.jsonl}. */
    public static boolean holdsMetrics(Path dir) throws IOException {
        return !files(dir).isEmpty();
    }

    public static Steps read(Path dir) throws IOException {
        List<Path> files = files(dir);
        List<TrainerRunSummary.Step> steps = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (Path file : files) {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            String[] lines = text.split("\n", -1);
            // split leaves "" after a final newline; anything else there is an unterminated line
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                boolean last = i == lines.length - 1;
                if (line.isBlank()) {
                    continue;
                }
                if (last) {
                    warnings.add(file + ":" + (i + 1) + ": the last line has no newline (a writer killed mid-line);"
                            + " it is left out");
                    continue;
                }
                steps.add(step(file, i + 1, line));
            }
        }
        return new Steps(files, steps, warnings);
    }

    private static List<Path> files(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> in = Files.newDirectoryStream(dir, "rank_*_metrics.jsonl")) {
            in.forEach(files::add);
        }
        files.sort(null);
        return files;
    }

    private static TrainerRunSummary.Step step(Path file, int lineNumber, String line) throws IOException {
        Map<String, Double> numbers = new HashMap<>();
        boolean overlapBlock = false;
        boolean perStreamBlock = false;
        try (JsonParser p = JSON.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("not a JSON object");
            }
            Deque<String> path = new ArrayDeque<>();
            String field = null;
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                switch (t) {
                    case FIELD_NAME -> field = p.currentName();
                    case START_OBJECT -> {
                        path.addLast(field);
                        String at = String.join(".", path);
                        overlapBlock |= at.equals(OVERLAP + "overlap_ms");
                        perStreamBlock |= at.equals(OVERLAP + "per_stream_ms");
                    }
                    case END_OBJECT -> path.pollLast();
                    case START_ARRAY -> p.skipChildren();
                    case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> numbers.put(path.isEmpty() ? field
                            : String.join(".", path) + "." + field, p.getDoubleValue());
                    default -> {
                        // strings, booleans and nulls carry nothing AORTA's report reads
                    }
                }
            }
        } catch (IOException e) {
            throw new IOException(file + ":" + lineNumber + ": not a JSON metrics line (" + firstLine(e) + ")", e);
        }
        if (!overlapBlock || !perStreamBlock) {
            throw new IOException(file + ":" + lineNumber + ": no profile.overlap.overlap_ms and"
                    + " profile.overlap.per_stream_ms objects, which AORTA's report reads from every step's line");
        }
        return new TrainerRunSummary.Step(numbers.getOrDefault("loss", Double.NaN),
                numbers.getOrDefault(OVERLAP + "overlap_ms.compute_comm", 0.0),
                numbers.getOrDefault(OVERLAP + "per_stream_ms.compute", 0.0),
                numbers.getOrDefault(OVERLAP + "overlap_ms.compute_allreduce", 0.0),
                numbers.getOrDefault(OVERLAP + "overlap_ms.compute_reducescatter", 0.0));
    }

    private static String firstLine(Exception e) {
        return e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
    }
}
