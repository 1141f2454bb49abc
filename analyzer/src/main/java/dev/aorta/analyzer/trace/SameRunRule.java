package dev.aorta.analyzer.trace;

import dev.aorta.analyzer.clock.ClockMapper;
import dev.aorta.core.event.ClockDomain;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Whether the files merged into one rank's timeline can be recordings of one run. Without this check, a Kineto
 * trace and a rocprofv3 trace, or two agent traces from different days, silently became one timeline billions of
 * milliseconds long, mostly the gap between them.
 *
 * <p>The rule, for every two files of a rank: their time ranges are compared on one clock — the clock most records
 * of the second file use, onto which the first file's records are mapped through the rank's clock anchors; when
 * no anchor relates any clock of the first file to it, their raw timestamps are compared instead (an epoch clock
 * against a boot-time clock differs by decades, boot-time clocks of different boots by hours or days, so unrelated
 * traces still stand out). The files are from different runs when the gap between their ranges is longer than
 * {@link #TOLERANCE} <em>and</em> longer than the two ranges together. The tolerance keeps what one run writes
 * together: a profiler capturing a few steps at a time leaves seconds to minutes between its files, and an agent
 * trace of a whole run surrounds a profiler trace of part of it; a gap longer than an hour and than everything that
 * was recorded means the merged timeline would be mostly time in which neither file recorded anything.
 *
 * <p>Such files are refused rather than analysed separately: one report per rank is what every later step (collective
 * alignment, stragglers, the report's aggregates) assumes, and which file belongs to "the" run is the user's call.
 */
public final class SameRunRule {
    /** The longest gap between two files of one run that is accepted whatever their lengths. */
    public static final Duration TOLERANCE = Duration.ofHours(1);

    private SameRunRule() {
    }

    /** Fails with one sentence naming the first two files of a rank that cannot share its timeline. */
    public static void check(TraceSet set) throws UnrelatedRunsException {
        for (RankTrace rank : set.ranks()) {
            Optional<String> problem = problem(rank);
            if (problem.isPresent()) {
                throw new UnrelatedRunsException(problem.get());
            }
        }
    }

    private static Optional<String> problem(RankTrace rank) {
        Map<Path, List<SourceSpan>> byFile = new LinkedHashMap<>();
        rank.sourceSpans().forEach(s -> byFile.computeIfAbsent(s.file(), f -> new ArrayList<>()).add(s));
        List<Path> files = new ArrayList<>(byFile.keySet());
        for (int j = 1; j < files.size(); j++) {
            for (int i = 0; i < j; i++) {
                Optional<String> p = problem(rank, byFile.get(files.get(i)), byFile.get(files.get(j)));
                if (p.isPresent()) {
                    return p;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> problem(RankTrace rank, List<SourceSpan> first, List<SourceSpan> second) {
        ClockDomain clock = main(second).clock();
        ClockMapper mapper = new ClockMapper(clock, rank.anchors());
        Optional<SourceSpan> firstOnClock = onto(first, mapper, clock);
        boolean related = firstOnClock.isPresent();
        SourceSpan a = related ? firstOnClock.get() : main(first);
        SourceSpan b = related ? onto(second, mapper, clock).orElseThrow() : main(second);
        long gap = a.gapTo(b);
        if (gap <= TOLERANCE.toNanos() || gap <= a.lengthNs() + b.lengthNs()) {
            return Optional.empty();
        }
        String basis = related ? "on the " + clock.tag() + " clock they"
                : "no clock anchor relates their clocks (" + a.clock().tag() + ", " + clock.tag()
                        + ") and their raw timestamps";
        String conclusion = related ? "so they are from different runs" : "so nothing places them on one timeline";
        return Optional.of(names(a.file(), b.file()) + " cannot be one timeline of rank " + rank.rank() + ": "
                + basis + " lie " + duration(gap) + " apart while they span " + duration(a.lengthNs()) + " and "
                + duration(b.lengthNs()) + ", " + conclusion + "; analyse each run's files with its own command");
    }

    /** The two files by name, or by path where their names alone would not tell them apart. */
    private static String names(Path a, Path b) {
        boolean sameName = a.getFileName().equals(b.getFileName());
        return (sameName ? a : a.getFileName()) + " and " + (sameName ? b : b.getFileName());
    }

    /** The span of the clock most of a file's records use. */
    private static SourceSpan main(List<SourceSpan> spans) {
        return spans.stream().max((a, b) -> Long.compare(a.records(), b.records())).orElseThrow();
    }

    /** What of a file's records can be put on {@code clock}, as one span there. */
    private static Optional<SourceSpan> onto(List<SourceSpan> spans, ClockMapper mapper, ClockDomain clock) {
        return spans.stream().filter(s -> mapper.canMap(s.clock()))
                .map(s -> s.shifted(mapper.offset(s.clock()), clock)).reduce(SourceSpan::union);
    }

    private static String duration(long ns) {
        double s = ns / 1e9;
        if (s >= 365 * 86_400) {
            return String.format(Locale.ROOT, "%.1f years", s / (365.25 * 86_400));
        }
        if (s >= 86_400) {
            return String.format(Locale.ROOT, "%.1f days", s / 86_400);
        }
        if (s >= 3_600) {
            return String.format(Locale.ROOT, "%.1f h", s / 3_600);
        }
        if (s >= 60) {
            return String.format(Locale.ROOT, "%.1f min", s / 60);
        }
        return s >= 1 ? String.format(Locale.ROOT, "%.1f s", s) : String.format(Locale.ROOT, "%.3f ms", ns / 1e6);
    }
}
