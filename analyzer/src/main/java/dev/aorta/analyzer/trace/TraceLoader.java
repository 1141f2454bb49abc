package dev.aorta.analyzer.trace;

import dev.aorta.analyzer.columns.ActivityColumns;
import dev.aorta.analyzer.columns.ApiCallColumns;
import dev.aorta.analyzer.read.TraceFormatException;
import dev.aorta.analyzer.read.TraceReader;
import dev.aorta.analyzer.read.TraceReaders;
import dev.aorta.analyzer.read.SkippedRecords;
import dev.aorta.analyzer.read.TraceSource;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads trace files into a {@link TraceSet}, one {@link RankTrace} per rank. A file's rank is the one its content
 * declares (Kineto's {@code distributedInfo.rank}, the rank field of agent or AORTA records); failing that a
 * {@code rank_N}/{@code rankN} in its name; failing that 0. Files of the same rank are merged, so agent records
 * and device traces of one run form one timeline.
 *
 * <p>Files that cannot be read at all (unknown format, empty, missing required column) are reported as
 * warnings; {@link #load} fails only when no file gave anything, or when files of one rank cannot be one run's
 * timeline ({@link SameRunRule}).
 */
public final class TraceLoader {
    private static final String METRICS_FORMAT = "aorta-metrics-jsonl";
    private static final Pattern RANK_IN_NAME = Pattern.compile("rank[_-]?(\\d+)", Pattern.CASE_INSENSITIVE);
    private final TraceReaders readers;

    public TraceLoader(TraceReaders readers) {
        this.readers = readers;
    }

    public static TraceLoader withInstalledReaders() {
        return new TraceLoader(TraceReaders.installed());
    }

    /** Reads every path (a directory contributes the trace files directly inside it and its subfolders). */
    public TraceSet load(List<Path> paths) throws IOException {
        TraceSet set = new TraceSet();
        // a reader plugin that failed to load may be why a file has no reader: say so first
        List<String> errors = new ArrayList<>(readers.skipped());
        List<Map.Entry<TraceSource, TraceReader>> files = new ArrayList<>();
        for (Path path : expand(paths)) {
            try {
                TraceSource source = TraceSource.of(path);
                files.add(Map.entry(source, readers.readerFor(source)));
            } catch (TraceFormatException e) {
                errors.add(e.getMessage());
            } catch (IOException e) {
                errors.add(path + ": " + e.getMessage());
            }
        }
        // metrics summaries last: they are left out for ranks that real records cover (see readInto)
        files.sort((a, b) -> Boolean.compare(a.getValue().format().equals(METRICS_FORMAT),
                b.getValue().format().equals(METRICS_FORMAT)));
        // files are read on several threads, and merged in this order as before
        int[] merged = {0};
        ParallelInOrder.forEach(files, f -> read(f.getKey(), f.getValue()), (f, records, failure) -> {
            if (failure instanceof TraceFormatException e) {
                errors.add(e.getMessage());
            } else if (failure != null) {
                errors.add(f.getKey().path() + ": " + failure.getMessage());
            } else {
                merge(set, f.getKey(), f.getValue(), records);
                merged[0]++;
            }
        });
        if (merged[0] == 0 || set.isEmpty()) {
            if (errors.isEmpty()) {
                errors.add(files.isEmpty() ? "no files in " + String.join(", ", paths.stream().map(Path::toString).toList())
                        : "no trace records found: " + String.join(", ", files.stream().map(f -> f.getKey().path()
                        + " (read as " + f.getValue().format() + ")").toList()) + (files.size() == 1 ? " holds" : " hold")
                        + " no device activity, API call or marker with a usable time");
            }
            // why a file gave nothing (a trace cut before its first record) is the answer the user needs
            errors.addAll(set.warnings());
            throw new TraceFormatException(String.join("; ", errors));
        }
        SameRunRule.check(set);
        set.warnings().addAll(0, errors);
        return set;
    }

    /** Reads one file into {@code set}. */
    public void readInto(TraceSet set, TraceSource source) throws IOException {
        readInto(set, source, readers.readerFor(source));
    }

    private void readInto(TraceSet set, TraceSource source, TraceReader reader) throws IOException {
        merge(set, source, reader, read(source, reader));
    }

    private static FileRecords read(TraceSource source, TraceReader reader) throws IOException {
        // AORTA metrics lay iterations end to end on a made-up timeline: no time range to compare with other files
        FileRecords records = new FileRecords(source, !reader.format().equals(METRICS_FORMAT));
        reader.read(source, records);
        return records;
    }

    /** Adds a file's records to the ranks read so far (which it may be shifted onto, or left out beside). */
    private static void merge(TraceSet set, TraceSource source, TraceReader reader, FileRecords records) {
        int rank = records.declaredRank != TraceSink.UNKNOWN_RANK ? records.declaredRank : rankFromName(source.name());
        if (reader.format().equals(METRICS_FORMAT) && hasTimedRecords(set.rank(rank))) {
            // AORTA-style metrics carry no absolute times (their timeline is synthetic), so they cannot join real
            // records on one clock; beside our agent's records they summarise the same run anyway. API calls and
            // markers count too: with device-activity=none the agent writes only those, and its summary's
            // iterations would otherwise stay behind as records no anchor can place
            // the agent writes its summary beside its records: leaving it out is the expected case, not news
            if (!Files.exists(source.path().resolveSibling("rank_" + rank + "_activity.jsonl"))) {
                set.warnings().add(source.name() + ": left out: rank " + rank + " has timed records from other files, "
                        + "and per-iteration metrics have no clock to place them beside those");
            }
            return;
        }
        records.flushInto(set, rank);
    }

    private static boolean hasTimedRecords(RankTrace rank) {
        return !rank.activities().isEmpty() || !rank.apiCalls().isEmpty() || !rank.markers().isEmpty();
    }

    static int rankFromName(String name) {
        Matcher m = RANK_IN_NAME.matcher(name);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    private static List<Path> expand(List<Path> paths) throws IOException {
        List<Path> files = new ArrayList<>();
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> walk = Files.walk(p)) {
                    walk.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().startsWith("."))
                            .sorted().forEach(files::add);
                }
            } else {
                files.add(p);
            }
        }
        return files;
    }

    /**
     * No clock a trace uses reads more than this: the epoch-based ones (Unix time, CUPTI, Kineto) pass it in 2096,
     * the others (boot time, session-relative, monotonic) count from a recent origin. A larger time is an overflow
     * or a damaged digit, and a single one would stretch a whole-trace window over decades.
     */
    private static final long LATEST_PLAUSIBLE_NS = 4_000_000_000_000_000_000L;

    /** The API calls, streams and dependencies of one rank of a file that holds several. */
    private static final class OfRank {
        final ApiCallColumns apiCalls = new ApiCallColumns();
        final List<StreamInfo> streams = new ArrayList<>();
        final List<Dependency> dependencies = new ArrayList<>();
    }

    /** The records of one file, held until the file's rank is known (a trace may declare it at its end). */
    private static final class FileRecords implements TraceSink {
        private final String file;
        private int declaredRank = UNKNOWN_RANK;
        private int worldSize;
        private final ActivityColumns activities = new ActivityColumns();
        private final ApiCallColumns apiCalls = new ApiCallColumns();
        private final List<Marker> markers = new ArrayList<>();
        private final List<StreamInfo> streams = new ArrayList<>();
        private final List<Dependency> dependencies = new ArrayList<>();
        private final List<ClockAnchor> anchors = new ArrayList<>();
        private final List<JvmPause> pauses = new ArrayList<>();
        /** API calls, streams and dependencies the reader gave a rank of their own (a file holding several ranks). */
        private final Map<Integer, OfRank> ofRank = new HashMap<>();
        private final List<String> warnings = new ArrayList<>();
        private long untimed;
        private final SkippedRecords impossible;
        private final Path path;
        private final boolean realTimes;
        /** rank → clock → {first start, last end, records}, for the spans {@link SameRunRule} compares. */
        private final Map<Integer, Map<ClockDomain, long[]>> covered = new HashMap<>();

        FileRecords(TraceSource source, boolean realTimes) {
            this.file = source.name();
            this.path = source.path();
            this.impossible = new SkippedRecords(source.path().toString());
            this.realTimes = realTimes;
        }

        @Override
        public void declaredRank(int rank, int worldSize) {
            this.declaredRank = rank;
            this.worldSize = worldSize;
        }

        @Override
        public void activity(DeviceActivity a) {
            if (a.startNs() == 0 && a.endNs() == 0) {
                untimed++; // CUPTI's "could not time this one": no place on any timeline
                return;
            }
            if (possible("device records", a.startNs(), a.endNs())) {
                activities.add(a);
            }
        }

        @Override
        public void api(ApiCall c) {
            if (possible("API calls", c.startNs(), c.endNs())) {
                apiCalls.add(c);
            }
        }

        @Override
        public void api(ApiCallColumns calls, int i, Map<String, Object> args) {
            if (possible("API calls", calls.startNs(i), calls.endNs(i))) {
                apiCalls.addFrom(calls, i, 0, args);  // column to column: no record per call
            }
        }

        /**
         * Every reader's times pass this range check: no clock the readers know runs before its origin or past
         * {@link #LATEST_PLAUSIBLE_NS}, and nothing ends before it starts, so such a record is damage (an
         * overflowed or negative timestamp), never a time.
         */
        private boolean possible(String what, long startNs, long endNs) {
            if (startNs < 0) {
                impossible.skip(what + " starting before their clock's origin (negative start)", null);
            } else if (endNs > LATEST_PLAUSIBLE_NS) {
                impossible.skip(what + " ending after the year 2096 on every clock (an overflowed timestamp)", null);
            } else if (endNs < startNs) {
                impossible.skip(what + " ending before they start", null);
            } else {
                return true;
            }
            return false;
        }

        @Override
        public void api(int rank, ApiCall c) {
            if (rank == UNKNOWN_RANK) {
                api(c);
            } else if (possible("API calls", c.startNs(), c.endNs())) {
                ofRank(rank).apiCalls.add(c);
            }
        }

        @Override
        public void stream(int rank, StreamInfo s) {
            if (rank == UNKNOWN_RANK) {
                stream(s);
            } else {
                ofRank(rank).streams.add(s);
            }
        }

        @Override
        public void dependency(int rank, Dependency d) {
            if (rank == UNKNOWN_RANK) {
                dependency(d);
            } else {
                ofRank(rank).dependencies.add(d);
            }
        }

        private OfRank ofRank(int rank) {
            return ofRank.computeIfAbsent(rank, r -> new OfRank());
        }

        @Override
        public void stream(StreamInfo s) {
            streams.add(s);
        }

        @Override
        public void marker(Marker m) {
            if (possible("markers", m.startNs(), m.endNs())) {
                markers.add(m);
            }
        }

        @Override
        public void dependency(Dependency d) {
            dependencies.add(d);
        }

        @Override
        public void anchor(ClockAnchor a) {
            anchors.add(a);
        }

        @Override
        public void jvmPause(JvmPause pause) {
            pauses.add(pause);
        }

        @Override
        public void warning(String message) {
            warnings.add(message);
        }

        @Override
        public void malformed(long lineNumber, String reason) {
            warnings.add(file + ":" + lineNumber + ": skipped an incomplete or malformed record (" + reason + ")");
        }

        void flushInto(TraceSet set, int fileRank) {
            OfRank mine = ofRank.remove(fileRank);
            if (mine != null) {
                // the file's own rank named explicitly: its records are the file's
                mine.apiCalls.forEach(apiCalls::add);
                streams.addAll(mine.streams);
                dependencies.addAll(mine.dependencies);
            }
            set.warnings().addAll(warnings);
            if (impossible.warning() != null) {
                set.warnings().add(impossible.warning());
            }
            if (untimed > 0) {
                set.warnings().add(file + ": left out " + untimed + " device records without timestamps (start = end = 0)");
            }
            Map<ClockDomain, Long> shift = shiftsOntoExistingAnchors(set.rank(fileRank));
            // per-record ranks (agent JSONL, AORTA logs) win; records without one belong to the file's rank
            if (shift.isEmpty() && set.rank(fileRank).activities().isEmpty()
                    && activities.allOfRanks(UNKNOWN_RANK, fileRank)) {
                // the rank's first file: its records become the rank's as they are, without a copy
                activities.replaceRank(UNKNOWN_RANK, fileRank);
                target(set, fileRank).takeActivities(activities);
                for (int i = 0; i < activities.size(); i++) {
                    cover(fileRank, activities.clock(i), activities.startNs(i), activities.endNs(i));
                }
            } else {
                for (int i = 0; i < activities.size(); i++) {
                    int r = activities.rank(i) == UNKNOWN_RANK ? fileRank : activities.rank(i);
                    ActivityColumns into = target(set, r).activities();
                    into.addShifted(activities, i, shift.getOrDefault(activities.clock(i), 0L), r);
                    int k = into.size() - 1;
                    cover(r, into.clock(k), into.startNs(k), into.endNs(k));
                }
            }
            for (Marker m : markers) {
                int r = m.rank() == UNKNOWN_RANK ? fileRank : m.rank();
                Marker merged = m.shifted(shift.getOrDefault(m.clock(), 0L), r, m.clock());
                target(set, r).markers().add(merged);
                cover(r, merged.clock(), merged.startNs(), merged.endNs());
            }
            RankTrace own = target(set, fileRank);
            own.worldSize(worldSize);
            if (shift.isEmpty() && own.apiCalls().isEmpty()) {
                own.takeApiCalls(apiCalls);  // the rank's first calls: taken as they are, without a copy
                for (int i = 0; i < apiCalls.size(); i++) {
                    cover(fileRank, apiCalls.clock(i), apiCalls.startNs(i), apiCalls.endNs(i));
                }
            } else {
                ApiCallColumns ownCalls = own.apiCalls();
                for (int i = 0; i < apiCalls.size(); i++) {
                    ownCalls.addShifted(apiCalls, i, shift.getOrDefault(apiCalls.clock(i), 0L));
                    int k = ownCalls.size() - 1;
                    cover(fileRank, ownCalls.clock(k), ownCalls.startNs(k), ownCalls.endNs(k));
                }
            }
            for (Dependency x : dependencies) {
                own.dependencies().add(x.shifted(shift.getOrDefault(x.clock(), 0L), x.clock()));
            }
            for (JvmPause p : pauses) {
                own.jvmPauses().add(p.shifted(shift.getOrDefault(p.clock(), 0L), p.clock()));
            }
            own.streams().addAll(streams);
            for (ClockAnchor a : anchors) {
                if (!shift.containsKey(a.from())) {
                    own.anchors().add(a);
                }
            }
            ofRank.forEach((r, records) -> {
                RankTrace other = target(set, r);
                for (int i = 0; i < records.apiCalls.size(); i++) {
                    other.apiCalls().addShifted(records.apiCalls, i, shift.getOrDefault(records.apiCalls.clock(i), 0L));
                    cover(r, records.apiCalls.clock(i), records.apiCalls.startNs(i), records.apiCalls.endNs(i));
                }
                other.streams().addAll(records.streams);
                for (Dependency x : records.dependencies) {
                    other.dependencies().add(x.shifted(shift.getOrDefault(x.clock(), 0L), x.clock()));
                }
            });
            if (realTimes) {
                covered.forEach((r, byClock) -> byClock.forEach((clock, c) ->
                        set.rank(r).sourceSpans().add(new SourceSpan(path, clock, c[0], c[1], c[2]))));
            }
        }

        private void cover(int rank, ClockDomain clock, long startNs, long endNs) {
            long[] c = covered.computeIfAbsent(rank, r -> new EnumMap<>(ClockDomain.class))
                    .computeIfAbsent(clock, k -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE, 0});
            c[0] = Math.min(c[0], startNs);
            c[1] = Math.max(c[1], endNs);
            c[2]++;
        }

        /**
         * Two files of one rank may use the same clock tag with different origins (two Kineto traces each
         * relative to its own baseTimeNanoseconds). When this file anchors a clock differently from an anchor the
         * rank already has, its records of that clock are shifted onto the existing origin, so one tag means one
         * origin within a rank.
         */
        private Map<ClockDomain, Long> shiftsOntoExistingAnchors(RankTrace rank) {
            Map<ClockDomain, Long> shift = new EnumMap<>(ClockDomain.class);
            for (ClockAnchor mine : anchors) {
                for (ClockAnchor theirs : rank.anchors()) {
                    if (theirs.from() == mine.from() && theirs.to() == mine.to()) {
                        long d = (mine.toNs() - mine.fromNs()) - (theirs.toNs() - theirs.fromNs());
                        if (d != 0) {
                            shift.putIfAbsent(mine.from(), d);
                        }
                    }
                }
            }
            return shift;
        }

        private RankTrace target(TraceSet set, int rank) {
            RankTrace t = set.rank(rank);
            t.addSource(file);
            return t;
        }
    }
}
