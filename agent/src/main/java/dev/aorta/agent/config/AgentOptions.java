package dev.aorta.agent.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import dev.aorta.agent.capture.BetweenWindows;
import dev.aorta.agent.capture.CaptureSchedule;
import dev.aorta.agent.capture.Durations;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * The agent's configuration. Sources, later ones winning: defaults, the file named by {@code config}
 * (or {@code AORTA_CONFIG}; {@code .properties}, else YAML), {@code AORTA_*} environment variables
 * ({@code AORTA_BIND_COLLECTIVES} for {@code bind-collectives}), the agent argument string
 * {@code key=value,key=value}.
 */
public final class AgentOptions {

    /** The agent argument that prints {@link #describe()} instead of starting the agent. */
    public static final String HELP = "help";

    /** Every option: its key, its default, and one line saying what it does. */
    public enum Option {
        OUTPUT("output", "aorta-out", "directory for rank_<r>_activity.jsonl, rank_<r>_metrics.jsonl (created if missing)"),
        RANK("rank", "", "this process's rank; default from RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, LOCAL_RANK, else 0"),
        WORLD_SIZE("world-size", "", "number of ranks; default from WORLD_SIZE, SLURM_NTASKS, OMPI_COMM_WORLD_SIZE, else 1"),
        RECORD("record", "all", "what to record: all, or a list of launch,copy,memset,stream,sync,event,collective,memory,blas (separated by '+' or ';')"),
        SINKS("sinks", "jsonl+metrics+jfr", "where records go: jsonl, metrics, jfr (separated by '+' or ';')"),
        JFR("jfr", "", "file: the agent starts its own JFR recording and writes it there at exit; empty = events only go to recordings the application starts"),
        DEVICE_ACTIVITY("device-activity", "auto", "device timestamps: cupti (aorta-gpu's CUPTI binding, JVM >= 22), events (sampled event pairs around every Nth launch of each stream, needs JCuda), auto (cupti, else events), validate (cupti and events together, comparing the sampled kernels' durations with CUPTI's), none"),
        SAMPLE_EVERY("sample-every", "100", "with device-activity=events or validate: bracket every Nth kernel launch of each stream with a pair of timed events"),
        CORRELATE("correlate", "true", "with CUPTI, also trace driver API calls to join API records to device activity (cupti_correlation)"),
        ITERATION_METHOD("iteration-method", "", "class#method whose every call is one iteration (besides dev.aorta.api.Aorta markers)"),
        BIND_COLLECTIVES("bind-collectives", "false", "run intercepted collectives on a dedicated communication stream per device"),
        COMM_STREAM_PRIORITY("comm-stream-priority", "-1", "CUDA priority of that communication stream (lower = more urgent)"),
        JOIN("join", "immediate", "where the application stream waits for a rebound collective: immediate, next-sync, iteration-end"),
        BUFFER_RECORDS("buffer-records", "16384", "records per thread buffered before dropping (power of two, 64..1048576; 96 bytes each)"),
        CLOCK("clock", "auto", "host clock read on the hot path: tsc (rdtsc via FFM, ~10 ns a read; JVM >= 22, x86-64 Linux, invariant TSC), nanotime (System.nanoTime), auto (tsc when the kernel's clocksource is tsc and native access is enabled, else nanotime); timestamps are written as CLOCK_MONOTONIC ns either way"),
        DRAIN_INTERVAL_MS("drain-interval-ms", "20", "how often the background thread empties the buffers and flushes files"),
        MAX_RANGES("metrics-max-ranges", "2000", "device activities listed per iteration in rank_<r>_metrics.jsonl profile.ranges"),
        WAIT("wait", "", "capture schedule over iterations: iterations to skip before each window (with warmup, active, repeat)"),
        WARMUP("warmup", "0", "capture schedule: iterations before each window with device activity running but not kept"),
        ACTIVE("active", "", "capture schedule: iterations in each window; giving it turns the iteration schedule on"),
        REPEAT("repeat", "0", "capture schedule: windows in all (0 = until the run ends)"),
        START_AFTER("start-after", "", "time window: opens this long after the agent started (e.g. 30s, 500ms, 2m); needs duration"),
        DURATION("duration", "", "time window: how long it stays open (e.g. 5s)"),
        CAPTURE("capture", "always", "always (no windows: everything is recorded), schedule (from wait/warmup/active/repeat or start-after/duration, implied by them), on-demand (only aorta capture and JMX open windows)"),
        BETWEEN_WINDOWS("between-windows", "api", "outside capture windows: api (host API calls only), off (nothing: the recording advice is taken out of the classes between windows) or gated (nothing; the advice stays woven, one flag read per intercepted call)"),
        UNWEAVE_GAP("unweave-gap", "1s", "with between-windows=off: the advice is taken out after a window only when the stretch before it without a window lasted this long (weaving costs ~20 ms and the JIT's recompilation; windows that come more often keep it woven, gated)"),
        VERBOSE("verbose", "false", "log each instrumented type and each sink's line counts"),
        CONFIG("config", "", "a .properties or YAML file with these options");

        private final String key;
        private final String defaultValue;
        private final String description;

        Option(String key, String defaultValue, String description) {
            this.key = key;
            this.defaultValue = defaultValue;
            this.description = description;
        }

        public String key() {
            return key;
        }

        public String defaultValue() {
            return defaultValue;
        }

        public String description() {
            return description;
        }

        /** How errors name it when its value came from the agent argument. */
        String named() {
            return "option '" + key + "'";
        }

        String envName() {
            return "AORTA_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
        }

        static Option byKey(String key) {
            for (Option o : values()) {
                if (o.key.equals(key)) {
                    return o;
                }
            }
            return null;
        }
    }

    /** A category of intercepted calls, for {@code record=}. */
    public enum Category { LAUNCH, COPY, MEMSET, STREAM, SYNC, EVENT, COLLECTIVE, MEMORY, BLAS }

    /** A sink, for {@code sinks=}. */
    public enum Sink { JSONL, METRICS, JFR }

    /** For {@code device-activity=}. */
    public enum DeviceSource { AUTO, CUPTI, EVENTS, VALIDATE, NONE }

    private final Map<Option, String> values;
    /** How an error names each value that did not come from the agent argument or the defaults: its variable or file. */
    private final Map<Option, String> origins;

    private AgentOptions(Map<Option, String> values, Map<Option, String> origins) {
        this.values = values;
        this.origins = origins;
        validate();
    }

    /** Options from the agent argument string plus the given environment (for tests) and file. */
    public static AgentOptions resolve(String agentArgs, Map<String, String> env) {
        Map<Option, String> fromArgs = parseArgs(agentArgs);
        Map<Option, String> merged = new LinkedHashMap<>();
        Map<Option, String> origins = new EnumMap<>(Option.class);
        for (Option o : Option.values()) {
            merged.put(o, o.defaultValue);
        }
        boolean configFromEnv = !fromArgs.containsKey(Option.CONFIG) && env.containsKey(Option.CONFIG.envName());
        String configFile = configFromEnv ? env.get(Option.CONFIG.envName()) : fromArgs.getOrDefault(Option.CONFIG, "");
        if (!configFile.isEmpty()) {
            String configSubject = configFromEnv ? fromEnvironment(Option.CONFIG) : Option.CONFIG.named();
            Map<Option, String> fromFile = readFile(Path.of(configFile), configSubject);
            merged.putAll(fromFile);
            fromFile.keySet().forEach(o -> origins.put(o, o.named() + " in config file " + configFile));
            merged.put(Option.CONFIG, configFile);
        }
        for (Option o : Option.values()) {
            String v = env.get(o.envName());
            if (v != null && o != Option.CONFIG) {
                merged.put(o, v.trim());
                origins.put(o, fromEnvironment(o));
            }
        }
        merged.putAll(fromArgs);
        origins.keySet().removeAll(fromArgs.keySet());
        return new AgentOptions(merged, origins);
    }

    private static String fromEnvironment(Option o) {
        return "environment variable " + o.envName() + " (" + o.named() + ")";
    }

    /** Checks an argument string without starting anything; used by {@code aorta attach} before it attaches. */
    public static void validate(String agentArgs) {
        resolve(agentArgs, Map.of());
    }

    /** The option table as "key  default  description" lines (for {@link #HELP}). */
    public static String describe() {
        StringBuilder sb = new StringBuilder();
        for (Option o : Option.values()) {
            sb.append(String.format(Locale.ROOT, "  %-22s %-20s %s%n", o.key,
                    o.defaultValue.isEmpty() ? "(none)" : o.defaultValue, o.description));
        }
        return sb.toString();
    }

    static Map<Option, String> parseArgs(String args) {
        Map<Option, String> out = new LinkedHashMap<>();
        if (args == null || args.isBlank()) {
            return out;
        }
        for (String part : args.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new OptionsException("agent argument '" + part.trim() + "' is not key=value; valid keys: " + keys());
            }
            out.put(option(part.substring(0, eq).trim(), "agent argument"), part.substring(eq + 1).trim());
        }
        return out;
    }

    /** {@code subject}: how an error names where the file's name came from. */
    private static Map<Option, String> readFile(Path file, String subject) {
        if (!Files.isReadable(file)) {
            throw new OptionsException(subject + ": cannot read '" + file + "' (expected a .properties or YAML file)");
        }
        Map<Option, String> out = new LinkedHashMap<>();
        String where = "config file " + file;
        try (Reader r = Files.newBufferedReader(file)) {
            if (file.getFileName().toString().endsWith(".properties")) {
                Properties p = new Properties();
                p.load(r);
                for (String k : p.stringPropertyNames()) {
                    out.put(option(k.trim(), where), p.getProperty(k).trim());
                }
                return out;
            }
            JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(r);
            if (root == null || root.isMissingNode() || root.isNull()) {
                return out;
            }
            // an "agent:" section lets the agent share a file with other aorta settings
            JsonNode section = root.has("agent") && root.get("agent").isObject() ? root.get("agent") : root;
            if (!section.isObject()) {
                throw new OptionsException(where + ": expected a mapping of option: value, found " + section.getNodeType());
            }
            for (Map.Entry<String, JsonNode> e : section.properties()) {
                if (e.getValue().isContainerNode()) {
                    throw new OptionsException(where + ": option '" + e.getKey() + "' must be a scalar, found " + e.getValue().getNodeType());
                }
                out.put(option(e.getKey(), where), e.getValue().asText());
            }
            return out;
        } catch (IOException e) {
            throw new OptionsException(where + ": not readable as " + (file.toString().endsWith(".properties") ? "properties" : "YAML")
                    + ": " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    private static Option option(String key, String where) {
        Option o = Option.byKey(key);
        if (o == null) {
            throw new OptionsException("unknown option '" + key + "' in " + where + "; valid options: " + keys());
        }
        return o;
    }

    private static String keys() {
        return String.join(", ", Arrays.stream(Option.values()).map(Option::key).toList());
    }

    private void validate() {
        rank(Map.of());
        worldSize(Map.of());
        categories();
        sinks();
        deviceSource();
        iterationMethod();
        bool(Option.BIND_COLLECTIVES);
        bool(Option.VERBOSE);
        bool(Option.CORRELATE);
        commStreamPriority();
        join();
        clock();
        captureSchedule();
        betweenWindows();
        unweaveGapNs();
        int records = bufferRecords();
        if (records < 64 || records > (1 << 20) || Integer.bitCount(records) != 1) {
            throw expected(Option.BUFFER_RECORDS, "a power of two in 64..1048576");
        }
        if (drainIntervalMs() < 1) {
            throw expected(Option.DRAIN_INTERVAL_MS, ">= 1");
        }
        if (sampleEvery() < 1) {
            throw expected(Option.SAMPLE_EVERY, ">= 1");
        }
        if (maxRanges() < 0) {
            throw expected(Option.MAX_RANGES, ">= 0");
        }
        if (get(Option.OUTPUT).isEmpty()) {
            throw new OptionsException(subject(Option.OUTPUT) + ": expected a directory, got an empty value");
        }
    }

    /** How errors name option {@code o}: by its key, or by the variable or file its value came from. */
    private String subject(Option o) {
        return origins.getOrDefault(o, o.named());
    }

    /** A bad value: where it came from, what was expected, and the value. */
    private OptionsException expected(Option o, String what) {
        return new OptionsException(subject(o) + ": expected " + what + ", got '" + get(o) + "'");
    }

    public String get(Option o) {
        return values.get(o);
    }

    public Path output() {
        return Path.of(get(Option.OUTPUT));
    }

    /** The rank: the option, else the launcher's environment variables, else 0. */
    public int rank(Map<String, String> env) {
        return intOrEnv(Option.RANK, env, "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "LOCAL_RANK", 0);
    }

    public int worldSize(Map<String, String> env) {
        return intOrEnv(Option.WORLD_SIZE, env, "WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", null, 1);
    }

    private int intOrEnv(Option o, Map<String, String> env, String v1, String v2, String v3, String v4, int dflt) {
        String explicit = get(o);
        if (!explicit.isEmpty()) {
            int v = integer(o);
            if (v < 0) {
                throw expected(o, ">= 0");
            }
            return v;
        }
        for (String name : new String[] {v1, v2, v3, v4}) {
            String v = name == null ? null : env.get(name);
            if (v != null && !v.isBlank()) {
                try {
                    return Integer.parseInt(v.trim());
                } catch (NumberFormatException e) {
                    throw new OptionsException("environment variable " + name + " (used for option '" + o.key
                            + "'): expected an integer, got '" + v + "'");
                }
            }
        }
        return dflt;
    }

    public Set<Category> categories() {
        String v = get(Option.RECORD);
        if (v.equals("all")) {
            return Collections.unmodifiableSet(EnumSet.allOf(Category.class));
        }
        EnumSet<Category> out = EnumSet.noneOf(Category.class);
        for (String s : list(v)) {
            out.add(enumValue(Category.class, Option.RECORD, s));
        }
        return out;
    }

    public Set<Sink> sinks() {
        EnumSet<Sink> out = EnumSet.noneOf(Sink.class);
        for (String s : list(get(Option.SINKS))) {
            out.add(enumValue(Sink.class, Option.SINKS, s));
        }
        return out;
    }

    public DeviceSource deviceSource() {
        return enumValue(DeviceSource.class, Option.DEVICE_ACTIVITY, get(Option.DEVICE_ACTIVITY));
    }

    /** {@code [class, method]} or null when no iteration method is configured. */
    public String[] iterationMethod() {
        String v = get(Option.ITERATION_METHOD);
        if (v.isEmpty()) {
            return null;
        }
        int hash = v.indexOf('#');
        if (hash <= 0 || hash == v.length() - 1 || v.indexOf('#', hash + 1) >= 0) {
            throw expected(Option.ITERATION_METHOD, "fully.qualified.Class#method");
        }
        return new String[] {v.substring(0, hash), v.substring(hash + 1)};
    }

    public String jfrFile() {
        return get(Option.JFR);
    }

    public boolean bindCollectives() {
        return bool(Option.BIND_COLLECTIVES);
    }

    public int commStreamPriority() {
        return integer(Option.COMM_STREAM_PRIORITY);
    }

    public ClockChoice clock() {
        return ClockChoice.parse(subject(Option.CLOCK), get(Option.CLOCK));
    }

    public JoinMode join() {
        return JoinMode.parse(subject(Option.JOIN), get(Option.JOIN));
    }

    /**
     * The capture schedule: iterations ({@code active} given), time ({@code start-after}/{@code duration}), on
     * demand, or always. A schedule's fields are checked together, and an error names the field at fault.
     */
    public CaptureSchedule captureSchedule() {
        String capture = get(Option.CAPTURE);
        boolean byIterations = !get(Option.ACTIVE).isEmpty() || !get(Option.WAIT).isEmpty();
        boolean byTime = !get(Option.START_AFTER).isEmpty() || !get(Option.DURATION).isEmpty();
        if (!capture.equals("always") && !capture.equals("schedule") && !capture.equals("on-demand")) {
            throw expected(Option.CAPTURE, "always, schedule or on-demand");
        }
        if (byIterations && byTime) {
            throw new OptionsException(subject(Option.START_AFTER) + ": a schedule is either over iterations (wait, warmup,"
                    + " active, repeat) or over time (start-after, duration), not both; got active='" + get(Option.ACTIVE)
                    + "' and start-after='" + get(Option.START_AFTER) + "'");
        }
        if (byIterations) {
            if (get(Option.ACTIVE).isEmpty()) {
                throw new OptionsException(subject(Option.ACTIVE) + ": expected the iterations per window (>= 1) with"
                        + " wait=" + get(Option.WAIT) + ", got nothing");
            }
            int wait = get(Option.WAIT).isEmpty() ? 0 : atLeast(Option.WAIT, 0);
            return checkedAgainst(capture, CaptureSchedule.iterations(wait, atLeast(Option.WARMUP, 0),
                    atLeast(Option.ACTIVE, 1), atLeast(Option.REPEAT, 0)));
        }
        if (byTime) {
            if (get(Option.DURATION).isEmpty()) {
                throw new OptionsException(subject(Option.DURATION) + ": expected how long the window stays open (e.g. 5s)"
                        + " with start-after=" + get(Option.START_AFTER) + ", got nothing");
            }
            long after = get(Option.START_AFTER).isEmpty() ? 0 : duration(Option.START_AFTER);
            long duration = duration(Option.DURATION);
            if (duration == 0) {
                throw expected(Option.DURATION, "a duration > 0");
            }
            return checkedAgainst(capture, CaptureSchedule.time(after, duration));
        }
        if (capture.equals("schedule")) {
            throw new OptionsException(subject(Option.CAPTURE) + ": 'schedule' needs active=N (iterations) or"
                    + " start-after=T,duration=T (time), got neither");
        }
        return capture.equals("on-demand") ? CaptureSchedule.ON_DEMAND : CaptureSchedule.ALWAYS;
    }

    private CaptureSchedule checkedAgainst(String capture, CaptureSchedule schedule) {
        if (capture.equals("on-demand")) {
            throw new OptionsException(subject(Option.CAPTURE) + ": 'on-demand' takes no schedule, got " + schedule);
        }
        return schedule;
    }

    public BetweenWindows betweenWindows() {
        return enumValue(BetweenWindows.class, Option.BETWEEN_WINDOWS, get(Option.BETWEEN_WINDOWS));
    }

    /** With {@code between-windows=off}: the shortest stretch between windows after which the advice is taken out. */
    public long unweaveGapNs() {
        return duration(Option.UNWEAVE_GAP);
    }

    private int atLeast(Option o, int min) {
        int v = integer(o);
        if (v < min) {
            throw expected(o, "an integer >= " + min);
        }
        return v;
    }

    private long duration(Option o) {
        long ns = Durations.parseNs(get(o));
        if (ns < 0) {
            throw expected(o, "a duration such as 30s, 500ms or 2m");
        }
        return ns;
    }

    /**
     * {@code AORTA_*} variables in {@code env} that are neither an option nor one of the launcher's or the GPU
     * runtime's own: most likely a misspelt option, which would otherwise be silently ignored.
     */
    public static java.util.List<String> unknownVariables(Map<String, String> env) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String name : new TreeSet<>(env.keySet())) {
            if (!name.startsWith("AORTA_") || OTHER_VARIABLES.contains(name) || name.endsWith("_LIBRARY")) {
                continue;
            }
            boolean option = Arrays.stream(Option.values()).anyMatch(o -> o.envName().equals(name));
            if (!option) {
                out.add(name);
            }
        }
        return out;
    }

    /** The agent's variables as a list, for the message naming an unknown one. */
    public static String variableNames() {
        return String.join(", ", Arrays.stream(Option.values()).map(Option::envName).toList());
    }

    /** AORTA_* variables read by the launcher script, the CLI and the GPU runtime (and *_LIBRARY overrides). */
    private static final Set<String> OTHER_VARIABLES = Set.of("AORTA_JAVA_HOME", "AORTA_JAVA_OPTS", "AORTA_BIN",
            "AORTA_HOME", "AORTA_PLUGINS", "AORTA_LAUNCHER", "AORTA_LAUNCHER_PID", "AORTA_KERNEL_CACHE", "AORTA_COMMANDS",
            "AORTA_SHARED", "AORTA_MIN_JAVA");

    public int bufferRecords() {
        return integer(Option.BUFFER_RECORDS);
    }

    public int drainIntervalMs() {
        return integer(Option.DRAIN_INTERVAL_MS);
    }

    public int maxRanges() {
        return integer(Option.MAX_RANGES);
    }

    public int sampleEvery() {
        return integer(Option.SAMPLE_EVERY);
    }

    public boolean correlate() {
        return bool(Option.CORRELATE);
    }

    public boolean verbose() {
        return bool(Option.VERBOSE);
    }

    private boolean bool(Option o) {
        String v = get(o);
        if (v.equals("true") || v.equals("false")) {
            return Boolean.parseBoolean(v);
        }
        throw expected(o, "true or false");
    }

    private int integer(Option o) {
        try {
            return Integer.parseInt(get(o));
        } catch (NumberFormatException e) {
            throw expected(o, "an integer");
        }
    }

    private static String[] list(String v) {
        return Arrays.stream(v.split("[+;]")).map(String::trim).filter(s -> !s.isEmpty()).toArray(String[]::new);
    }

    private <E extends Enum<E>> E enumValue(Class<E> type, Option o, String v) {
        for (E e : type.getEnumConstants()) {
            if (e.name().toLowerCase(Locale.ROOT).replace('_', '-').equals(v)) {
                return e;
            }
        }
        Set<String> valid = new TreeSet<>();
        for (E e : type.getEnumConstants()) {
            valid.add(e.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        }
        throw new OptionsException(subject(o) + ": unknown value '" + v + "'; expected one of " + valid);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        values.forEach((k, v) -> {
            if (!v.isEmpty()) {
                sb.append(sb.length() == 0 ? "" : ",").append(k.key).append('=').append(v);
            }
        });
        return sb.toString();
    }
}
