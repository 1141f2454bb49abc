package dev.aorta.workloads.launchoverhead;

import dev.aorta.workloads.launchoverhead.pcie.PcieStats;

import java.io.PrintStream;
import java.util.Locale;

/** Human output of {@code aorta launch-overhead}: rank lines, then the summary, like the seed; then what the numbers mean. */
public final class LaunchOverheadReport {
    private LaunchOverheadReport() {
    }

    public static void print(LaunchOverheadResult r, PrintStream out) {
        LaunchOverheadOptions o = r.options();
        out.printf(Locale.ROOT, "launch_overhead: codebook assignment, %s (w = %d points per centroid in balanced)%n",
                o.shape().describe(), o.shape().rowsPerCentroid());
        out.printf(Locale.ROOT, "device %d: %s; world size %d; %s s per pattern after %d warmup step(s)%n",
                o.device(), r.device().name(), r.worldSize(), o.seconds(), o.warmupSteps());
        for (Pattern p : o.patterns()) {
            out.printf(Locale.ROOT, "  %-10s %s%n", p.label(), p.description());
        }
        printCorrectness(r, out);
        for (LaunchOverheadResult.RankResult rank : r.ranks()) {
            printRankLines(rank, out);
        }
        out.println("summary:");
        for (LaunchOverheadSummary.Row row : LaunchOverheadSummary.of(r)) {
            if (row.skipReason() != null) {
                out.printf(Locale.ROOT, "  %-10s skipped: %s%n", row.pattern().label(), row.skipReason());
            } else {
                out.printf(Locale.ROOT, "  %-10s %10.2f ms/step (mean over %d rank%s, min %.2f, max %.2f)  %.0f launches/step  %.0f syncs/step%s%n",
                        row.pattern().label(), row.meanMsPerStep(), row.ranks(), row.ranks() == 1 ? "" : "s",
                        row.minMsPerStep(), row.maxMsPerStep(), row.launchesPerStep(), row.syncsPerStep(),
                        row.pattern().collective() ? String.format(Locale.ROOT, "  %.0f collectives/step",
                                row.collectivesPerStep()) : "");
            }
        }
        out.println("meaning: ms/step = wall time of the measured steps / steps (each step ends with a stream synchronize);"
                + " step median/min/max = single steps;");
        out.println("  launches/step = kernel launches + cuBLAS GEMM calls counted as issued; syncs/step = host waits for the"
                + " device counted as issued (device->host count reads + the end-of-step synchronize);");
        out.println("  PCIe rx/tx = MB/s averaged and peak over the samples taken while the pattern was measured.");
        if (r.worldSize() > 1) {
            out.println("  collectives/step = all-reduces issued per step (2 per stage); all_reduce and combined run the step"
                    + " count all ranks agreed on (the measured time at the slowest rank's pace), so every rank issues the"
                    + " same collectives; ranks other than 0 sample PCIe on their own host and print it there.");
        }
    }

    /** What a rank other than 0 prints: its own lines, the whole table being rank 0's. */
    public static void printRankLines(LaunchOverheadResult.RankResult rank, PrintStream out) {
        for (PatternResult p : rank.patterns()) {
            out.println(rankLine(rank.rank(), p));
        }
    }

    /** The correctness check's line, also all that {@code --check-only} prints. */
    public static String correctnessLine(CorrectnessCheck.Result c) {
        return String.format(Locale.ROOT, "correctness (%s): argmin = float64 reference: %s; balanced, every centroid "
                        + "exactly %d points: %s", c.shape().describe(), verdict(c.argminProblem()), c.shape().rowsPerCentroid(),
                verdict(c.balancedProblem()));
    }

    private static void printCorrectness(LaunchOverheadResult r, PrintStream out) {
        out.println(correctnessLine(r.correctness()));
        boolean balancedMeasured = r.ranks().getFirst().patterns().stream()
                .anyMatch(p -> p.pattern() == Pattern.BALANCED && !p.wasSkipped());
        if (balancedMeasured) {
            out.printf(Locale.ROOT, "correctness (measured size): balanced, every centroid exactly %d points: %s%n",
                    r.options().shape().rowsPerCentroid(), verdict(r.balancedFullSizeProblem()));
        }
        boolean collectiveMeasured = r.ranks().getFirst().patterns().stream()
                .anyMatch(p -> p.pattern().collective() && !p.wasSkipped());
        if (collectiveMeasured) {
            out.printf(Locale.ROOT, "correctness (all-reduce, %d ranks): every element of every rank = the sum over the ranks: %s%n",
                    r.worldSize(), verdict(r.allReduceProblem()));
        }
    }

    private static String verdict(String problem) {
        return problem == null ? "PASS" : "FAIL (" + problem + ")";
    }

    static String rankLine(int rank, PatternResult p) {
        if (p.wasSkipped()) {
            return String.format(Locale.ROOT, "rank %d  %-10s skipped: %s", rank, p.pattern().label(), p.skipReason());
        }
        return String.format(Locale.ROOT,
                "rank %d  %-10s %10.2f ms/step  %d steps in %.2f s (step median %.2f, min %.2f, max %.2f ms)  "
                        + "%.0f launches/step  %.0f syncs/step  %s%s",
                rank, p.pattern().label(), p.msPerStep(), p.steps(), p.elapsedSeconds(), p.medianStepMs(), p.minStepMs(),
                p.maxStepMs(), p.launchesPerStep(), p.syncsPerStep(),
                p.pattern().collective() ? String.format(Locale.ROOT, "%.0f collectives/step  ", p.collectivesPerStep()) : "",
                pcie(p.pcie()));
    }

    private static String pcie(PcieStats s) {
        if (!s.available()) {
            return "PCIe: " + s.unavailableReason();
        }
        return String.format(Locale.ROOT, "PCIe rx avg %.1f peak %.1f MB/s, tx avg %.1f peak %.1f MB/s (%s, %d samples)",
                s.rxAvgMBps(), s.rxPeakMBps(), s.txAvgMBps(), s.txPeakMBps(), s.source(), s.samples());
    }
}
