package dev.aorta.cli;

import dev.aorta.workloads.result.ResultComparison;
import dev.aorta.workloads.result.ResultJson;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

@Command(name = "compare", mixinStandardHelpOptions = true, description = "Compare a test result with a baseline (runs or sweeps, ours or AORTA's); "
        + "exit 1 when something regressed.")
final class CompareCommand implements Callable<Integer> {
    @Option(names = "--baseline", required = true, paramLabel = "FILE", description = "The reference result JSON.")
    Path baseline;

    @Option(names = "--test", required = true, paramLabel = "FILE", description = "The result JSON to judge.")
    Path test;

    @Option(names = "--threshold", defaultValue = "0.05", paramLabel = "FRACTION",
            description = "Smallest relative change that counts, e.g. 0.05 = 5%% (default: ${DEFAULT-VALUE}).")
    double threshold;

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
        for (Path p : new Path[] {baseline, test}) {
            if (!Files.isRegularFile(p)) {
                throw new IllegalArgumentException((p == baseline ? "--baseline " : "--test ") + p + ": no such file");
            }
        }
        ResultComparison.Report report = ResultComparison.compare(ResultJson.read(baseline), baseline.toString(),
                ResultJson.read(test), test.toString(), threshold);
        System.out.println("compare " + report.workload() + (report.sweep() ? " sweeps" : " runs") + ": baseline "
                + baseline + ", test " + test + ", threshold " + String.format(Locale.ROOT, "%.1f%%", threshold * 100));
        for (ResultComparison.Pair pair : report.pairs()) {
            System.out.println();
            System.out.println("  streams " + pair.streams() + ":");
            System.out.printf(Locale.ROOT, "    %-14s %14s %14s %9s %22s  %s%n", "METRIC", "BASELINE", "TEST", "CHANGE",
                    "99% CI OF CHANGE", "VERDICT");
            for (ResultComparison.MetricChange m : pair.metrics()) {
                System.out.printf(Locale.ROOT, "    %-14s %14s %14s %9s %22s  %s%n", m.metric(),
                        RunReport.fmt(m.baseline()), RunReport.fmt(m.test()), fmtPct(m.change()),
                        m.bootstrapped() ? "[" + fmtPct(m.ciLow()) + ", " + fmtPct(m.ciHigh()) + "]" : "n/a",
                        m.verdict().name().toLowerCase(Locale.ROOT).replace('_', ' '));
            }
            pair.notes().forEach(n -> System.out.println("    note: " + n));
        }
        report.notes().forEach(n -> System.out.println("  note: " + n));
        System.out.println();
        System.out.println("  CHANGE = test / baseline - 1 (throughput: higher is better; latency in ms: lower is "
                + "better). 99% CI: bootstrap interval of the change from both files' iteration times. "
                + "regression = worse than the threshold and the CI excludes no change.");
        boolean regressed = report.hasRegression();
        System.out.println(regressed ? "REGRESSION" : "no regression");
        return regressed ? 1 : 0;
    }

    private static String fmtPct(double fraction) {
        return String.format(Locale.ROOT, "%+.1f%%", fraction * 100);
    }
}
