package dev.aorta.agent.recorder;

import dev.aorta.agent.config.ClockChoice;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The host clock of the hot path. Advice stores {@link #ticks()} at each edge; the drain thread turns
 * ticks into CLOCK_MONOTONIC nanoseconds ({@code System.nanoTime()}'s clock, the one every record and
 * the CUPTI alignment use) with {@link #toNanos}, so that no conversion is paid on the calling thread.
 *
 * <p>Ticks are either {@code System.nanoTime()} itself (conversion is the identity) or the time-stamp
 * counter read by {@code rdtsc} (about 10 ns against 25-35 ns for nanoTime on the VMs we measured: two
 * reads per call decide whether an intercepted call fits its 40 ns budget). TSC ticks are mapped to ns by
 * linear interpolation between anchors, pairs of (nanoTime, ticks) read back to back, which the drain
 * thread takes at most every {@link #ANCHOR_SPAN_NS}: records lie between the last two anchors, so the
 * map follows NTP's slewing of CLOCK_MONOTONIC instead of extrapolating a rate measured once.
 *
 * <p>The choice is made once per JVM (a static final, so that the JIT folds it): {@link Selection#request}
 * before this class is first used. {@code auto} takes the TSC only where it is safe and quiet: JVM >= 22, x86-64
 * Linux, an invariant TSC ({@code constant_tsc} and {@code nonstop_tsc}), the kernel's clocksource is
 * {@code tsc} (the kernel checked it is synchronized across CPUs), and native access is enabled (else
 * the JDK prints a warning into the application's stderr).
 */
public final class HostClock {
    /** Anchors closer than this are not taken: their pairs' read jitter (~20 ns) would skew the rate. */
    static final long ANCHOR_SPAN_NS = 10_000_000L;

    private static final String STUB = "dev.aorta.agent.clock.TscStub";

    private static final MethodHandle TSC;
    private static final String DESCRIPTION;

    static {
        String[] why = new String[1];
        TSC = open(Selection.requested, why);
        DESCRIPTION = (TSC != null ? "tsc (rdtsc through FFM; ns by interpolation between nanoTime anchors)"
                : "System.nanoTime") + (why[0] != null ? " (" + why[0] + ")" : "");
    }

    /** Interpolation between the last two anchors; replaced whole, so a reader sees a consistent pair. */
    private record Segment(long fromTicks, long fromNs, long toTicks, long toNs, double nsPerTick) {
    }

    private static volatile Segment segment;

    static {
        if (TSC != null) {
            long[] a = readAnchor();
            segment = new Segment(a[0], a[1], a[0], a[1], 0);
        }
    }

    private HostClock() {
    }

    /**
     * The clock asked for, kept apart so that asking does not initialise {@link HostClock} (which fixes its
     * choice for the JVM's lifetime: asking after its first use has no effect, see {@link #description()}).
     */
    public static final class Selection {
        private static volatile ClockChoice requested = ClockChoice.AUTO;

        private Selection() {
        }

        public static void request(ClockChoice choice) {
            requested = choice;
        }
    }

    /** The clock in force and why: one line for the agent's log. */
    public static String description() {
        return DESCRIPTION;
    }

    /** The hot path's timestamp: TSC ticks or nanoTime. */
    public static long ticks() {
        if (TSC == null) {
            return System.nanoTime();
        }
        try {
            return (long) TSC.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("rdtsc stub failed", t);
        }
    }

    /**
     * Takes a new anchor when the last is {@link #ANCHOR_SPAN_NS} old: called by the drain thread before it
     * converts a batch, so the batch lies (almost) entirely before this anchor.
     */
    public static void anchor() {
        Segment s = segment;
        if (s == null) {
            return;
        }
        if (System.nanoTime() - s.toNs() < ANCHOR_SPAN_NS) {
            if (s.nsPerTick() == 0) {
                calibrate(s);  // the first batch: no span yet, take one short enough not to stall the drain
            }
            return;
        }
        long[] a = readAnchor();
        segment = new Segment(s.toTicks(), s.toNs(), a[0], a[1], (a[1] - s.toNs()) / (double) (a[0] - s.toTicks()));
    }

    private static void calibrate(Segment s) {
        long until = s.fromNs() + 2_000_000L;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        long[] a = readAnchor();
        segment = new Segment(s.fromTicks(), s.fromNs(), a[0], a[1],
                (a[1] - s.fromNs()) / (double) (a[0] - s.fromTicks()));
    }

    /** Host ns (CLOCK_MONOTONIC) of a value returned by {@link #ticks()}. */
    public static long toNanos(long ticks) {
        Segment s = segment;
        if (s == null) {
            return ticks;
        }
        if (s.nsPerTick() == 0) {
            anchor();
            s = segment;
        }
        return s.toNs() + Math.round((ticks - s.toTicks()) * s.nsPerTick());
    }

    /** Of three back-to-back (nanoTime, ticks, nanoTime) reads, the tightest: {ticks, ns at its midpoint}. */
    private static long[] readAnchor() {
        long best = Long.MAX_VALUE;
        long[] anchor = new long[2];
        for (int i = 0; i < 3; i++) {
            long before = System.nanoTime();
            long t = ticks();
            long after = System.nanoTime();
            if (after - before < best) {
                best = after - before;
                anchor[0] = t;
                anchor[1] = before + (after - before) / 2;
            }
        }
        return anchor;
    }

    private static MethodHandle open(ClockChoice choice, String[] why) {
        if (choice == ClockChoice.NANOTIME) {
            why[0] = "clock=nanotime";
            return null;
        }
        String refusal = tscRefusal(choice == ClockChoice.AUTO);
        if (refusal != null) {
            why[0] = choice == ClockChoice.AUTO ? refusal + "; clock=tsc forces the TSC" : "clock=tsc refused: " + refusal;
            return null;
        }
        try {
            MethodHandle h = (MethodHandle) Class.forName(STUB, true, HostClock.class.getClassLoader())
                    .getMethod("open").invoke(null);
            MethodHandle exact = h.asType(MethodType.methodType(long.class));
            long t0 = (long) exact.invokeExact();
            long n0 = System.nanoTime();
            long n1;
            while ((n1 = System.nanoTime()) - n0 < 1_000_000L) {
                Thread.onSpinWait();
            }
            double ghz = ((long) exact.invokeExact() - t0) / (double) (n1 - n0);
            if (!(ghz > 0.1 && ghz < 20)) {
                why[0] = String.format("the TSC ran at %.3f GHz over 1 ms; expected 0.1 to 20", ghz);
                return null;
            }
            return exact;
        } catch (Throwable t) {
            why[0] = "the rdtsc stub failed: " + t;
            return null;
        }
    }

    /** Why the TSC cannot (or, for auto, should not) be used here; null when it can. */
    private static String tscRefusal(boolean cautious) {
        if (Runtime.version().feature() < 22) {
            return "the TSC clock needs Java 22 (FFM); this is Java " + Runtime.version().feature();
        }
        String arch = System.getProperty("os.arch", "");
        if (!System.getProperty("os.name", "").startsWith("Linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return "the TSC clock is for x86-64 Linux; this is " + System.getProperty("os.name") + " " + arch;
        }
        String flags = read(Path.of("/proc/cpuinfo"));
        if (flags == null || !flags.contains(" constant_tsc") || !flags.contains(" nonstop_tsc")) {
            return "no invariant TSC (constant_tsc and nonstop_tsc in /proc/cpuinfo)";
        }
        if (!cautious) {
            return null;
        }
        String source = read(Path.of("/sys/devices/system/clocksource/clocksource0/current_clocksource"));
        if (source == null || !source.trim().equals("tsc")) {
            return "the kernel's clocksource is " + (source == null ? "unknown" : source.trim())
                    + ", not tsc, so TSC sync across CPUs is unverified";
        }
        if (!nativeAccessEnabled()) {
            return "native access is not enabled (--enable-native-access=ALL-UNNAMED)";
        }
        return null;
    }

    /** Whether this code may call native functions without the JDK printing a warning into the application's stderr. */
    public static boolean nativeAccessEnabled() {
        try {
            Module m = HostClock.class.getModule();
            return (boolean) Module.class.getMethod("isNativeAccessEnabled").invoke(m);
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
