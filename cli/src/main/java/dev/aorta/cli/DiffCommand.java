package dev.aorta.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.aorta.analyzer.diff.TraceDiff;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code aorta diff A B}: what changed between two traces, by kernel and API call name (docs/metrics.md#trace-diff). */
@Command(name = "diff", mixinStandardHelpOptions = true,
        description = {"Compare two traces (any format analyze reads) by kernel and API call name: count and time per"
                + " rank-iteration on each side, the largest changes first, and the names new in B or vanished from A.",
                "Traces that share little (different models) get one line saying how little instead of the list."})
public final class DiffCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "A", description = "The baseline trace: a file or a directory.")
    Path a;

    @Parameters(index = "1", paramLabel = "B", description = "The trace to compare with it: a file or a directory.")
    Path b;

    @Option(names = "--top", defaultValue = "20", paramLabel = "N",
            description = "Names listed per section, largest change in time first (default: ${DEFAULT-VALUE}).")
    int top;

    @Option(names = "--all", description = "List the names even when the traces share little.")
    boolean all;

    @Option(names = "--format", paramLabel = "text|json", defaultValue = "text", description = "text (default) or json.")
    String format;

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (top < 1) {
            throw new IllegalArgumentException("--top " + top + ": expected at least 1 (names listed per section)");
        }
        boolean json = CliOptions.isJson(format);
        TraceSet setA = TraceLoader.withInstalledReaders().load(List.of(a));
        TraceSet setB = TraceLoader.withInstalledReaders().load(List.of(b));
        TraceDiff diff = TraceDiff.of(setA, setB);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            writeJson(diff, out);
        } else {
            out.print(text(diff));
        }
        out.flush();
        setA.warnings().forEach(w -> spec.commandLine().getErr().println("aorta diff: warning: A: " + w));
        setB.warnings().forEach(w -> spec.commandLine().getErr().println("aorta diff: warning: B: " + w));
        return 0;
    }

    private String text(TraceDiff d) {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "A = %s (%s)%nB = %s (%s)%nper %s%n", a, side(d.a()), b, side(d.b()),
                d.a().rankIterations() > 0 && d.b().rankIterations() > 0 ? "rank-iteration" : "rank"));
        boolean list = all || !d.littleInCommon();
        section(s, "kernels", d.kernels(), list);
        section(s, "API calls", d.calls(), list);
        if (!list) {
            s.append(String.format(Locale.ROOT, "A and B have little in common: the kernel names they share carry"
                            + " %.1f%% of A's kernel time and %.1f%% of B's (under %.0f%%), so they are likely different"
                            + " models or programs; the names are not listed (--all lists them)%n",
                    100 * d.kernels().sharedTimeA(), 100 * d.kernels().sharedTimeB(), 100 * TraceDiff.LITTLE_IN_COMMON));
        }
        return s.toString();
    }

    private void section(StringBuilder s, String what, TraceDiff.Names n, boolean list) {
        s.append(String.format(Locale.ROOT, "%s: A %s, B %s (%s); %d names in A, %d in B, %d in both, covering %.1f%%"
                        + " of A's time and %.1f%% of B's%n", what, ms(n.totalANs()), ms(n.totalBNs()),
                change(n.totalANs(), n.totalBNs()), n.namesA(), n.namesB(), n.shared(), 100 * n.sharedTimeA(),
                100 * n.sharedTimeB()));
        if (!list || n.rows().isEmpty()) {
            return;
        }
        s.append(String.format(Locale.ROOT, "  %12s %12s %12s %9s %9s  %s%n", "delta ms", "A ms", "B ms", "A count",
                "B count", "name"));
        for (TraceDiff.Row r : n.rows().stream().limit(top).toList()) {
            s.append(String.format(Locale.ROOT, "  %+12.3f %12.3f %12.3f %9.1f %9.1f  %s%s%n", r.deltaNs() / 1e6,
                    r.timeANs() / 1e6, r.timeBNs() / 1e6, r.countA(), r.countB(), r.isNew() ? "[new] "
                            : r.vanished() ? "[vanished] " : "", abbreviate(r.name())));
        }
        s.append(String.format(Locale.ROOT, "  %d new in B (%s), %d vanished from A (%s)%n", n.added().size(),
                ms(n.added().stream().mapToDouble(TraceDiff.Row::timeBNs).sum()), n.vanished().size(),
                ms(n.vanished().stream().mapToDouble(TraceDiff.Row::timeANs).sum())));
    }

    private void writeJson(TraceDiff d, PrintWriter out) throws IOException {
        try (JsonGenerator g = JsonFactory.builder().build().createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("a", a.toString());
            g.writeStringField("b", b.toString());
            g.writeNumberField("ranks_a", d.a().ranks());
            g.writeNumberField("ranks_b", d.b().ranks());
            g.writeNumberField("rank_iterations_a", d.a().rankIterations());
            g.writeNumberField("rank_iterations_b", d.b().rankIterations());
            g.writeBooleanField("little_in_common", d.littleInCommon());
            names(g, "kernels", d.kernels(), all || !d.littleInCommon());
            names(g, "api_calls", d.calls(), all || !d.littleInCommon());
            g.writeEndObject();
        }
        out.println();
    }

    private void names(JsonGenerator g, String field, TraceDiff.Names n, boolean list) throws IOException {
        g.writeObjectFieldStart(field);
        g.writeNumberField("total_a_ns", n.totalANs());
        g.writeNumberField("total_b_ns", n.totalBNs());
        g.writeNumberField("names_a", n.namesA());
        g.writeNumberField("names_b", n.namesB());
        g.writeNumberField("names_shared", n.shared());
        g.writeNumberField("shared_time_a", n.sharedTimeA());
        g.writeNumberField("shared_time_b", n.sharedTimeB());
        g.writeNumberField("new_names", n.added().size());
        g.writeNumberField("vanished_names", n.vanished().size());
        g.writeArrayFieldStart("rows");
        if (list) {
            for (TraceDiff.Row r : n.rows().stream().limit(top).toList()) {
                g.writeStartObject();
                g.writeStringField("name", r.name());
                g.writeStringField("status", r.isNew() ? "new" : r.vanished() ? "vanished" : "both");
                g.writeNumberField("count_a", r.countA());
                g.writeNumberField("count_b", r.countB());
                g.writeNumberField("time_a_ns", r.timeANs());
                g.writeNumberField("time_b_ns", r.timeBNs());
                g.writeNumberField("delta_ns", r.deltaNs());
                g.writeEndObject();
            }
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static String side(TraceDiff.Side s) {
        return s.ranks() + (s.ranks() == 1 ? " rank, " : " ranks, ") + (s.rankIterations() == 0 ? "no iterations"
                : s.rankIterations() + " rank-iterations");
    }

    private static String change(double from, double to) {
        return from == 0 ? "n/a" : String.format(Locale.ROOT, "%+.1f%%", 100 * (to / from - 1));
    }

    private static String ms(double ns) {
        return String.format(Locale.ROOT, "%.3f ms", ns / 1e6);
    }

    private static String abbreviate(String name) {
        return name.length() <= 90 ? name : name.substring(0, 87) + "...";
    }
}
