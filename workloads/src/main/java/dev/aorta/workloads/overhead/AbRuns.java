package dev.aorta.workloads.overhead;

import com.fasterxml.jackson.databind.JsonNode;
import dev.aorta.workloads.result.ResultJson;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs the child command {@code runs} times without (A) and with (B) the interposer, alternating A B A B, each
 * writing its result JSON into the log directory ({@code -o}), and reads the metrics back.
 */
public final class AbRuns {
    private final List<String> command;
    private final Interposer interposer;
    private final Path logs;
    private final PrintStream progress;

    /** The metrics of every A and B run, in run order. */
    public record Outcome(List<Map<String, Double>> a, List<Map<String, Double>> b) {
    }

    /**
     * @param command the child's full command line, without {@code -o}
     * @param logs    where each run's output ({@code A1.log}) and result ({@code A1.json}) are kept
     */
    public AbRuns(List<String> command, Interposer interposer, Path logs, PrintStream progress) {
        this.command = List.copyOf(command);
        this.interposer = interposer;
        this.logs = logs;
        this.progress = progress;
    }

    public Outcome run(int runs) throws IOException, InterruptedException {
        Files.createDirectories(logs);
        Map<String, String> envA = System.getenv();
        Map<String, String> envB = interposer.environmentB(envA);
        List<Map<String, Double>> a = new ArrayList<>();
        List<Map<String, Double>> b = new ArrayList<>();
        for (int i = 1; i <= runs; i++) {
            a.add(runOnce("A" + i, envA, i, runs));
            b.add(runOnce("B" + i, envB, i, runs));
        }
        return new Outcome(a, b);
    }

    private Map<String, Double> runOnce(String name, Map<String, String> env, int i, int runs)
            throws IOException, InterruptedException {
        Path result = logs.resolve(name + ".json");
        Path log = logs.resolve(name + ".log");
        Files.deleteIfExists(result);
        List<String> full = new ArrayList<>(command);
        full.add("-o");
        full.add(result.toString());
        ProcessBuilder pb = new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        long start = System.nanoTime();
        int exit = pb.start().waitFor();
        double seconds = (System.nanoTime() - start) / 1e9;
        progress.printf(Locale.ROOT, "[%d/%d] %s (%s): exit %d, %.1f s, output %s%n", i, runs, name,
                name.startsWith("A") ? "plain" : "with " + interposer.describe(), exit, seconds, log);
        if (exit != 0) {
            throw new IllegalStateException("run " + name + " failed with exit code " + exit + "; its output: " + log);
        }
        if (!Files.isRegularFile(result)) {
            throw new IllegalStateException("run " + name + " wrote no result to " + result + "; its output: " + log);
        }
        JsonNode json = ResultJson.read(result);
        try {
            return new LinkedHashMap<>(ResultMetrics.from(json));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("run " + name + " (" + result + "): " + e.getMessage(), e);
        }
    }
}
