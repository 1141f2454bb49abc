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
 * reads per call decide whether an intercepted call fits its 40 ns budget). TSC ticks are mapped to ns by a
 * {@link TickTimeline}: tight (nanoTime, ticks) anchors the drain thread takes every cycle, and piecewise linear
 * interpolation between the two that bracket a reading, so that a reading converts to the same ns whenever it is
 * converted. Only readings up to {@link #settledThrough} are converted; the drain leaves newer records for the next
 * cycle. Capture windows read their edges as ticks too, converted the same way (see {@code CaptureWindows}).
 *
 * <p>The choice is made once per JVM (a static final, so that the JIT folds it): {@link Selection#request}
 * before this class is first used. {@code auto} takes the TSC only where it is safe and quiet: JVM >= 22, x86-64
 * Linux, an invariant TSC ({@code constant_tsc} and {@code nonstop_tsc}), the kernel's clocksource is
 * {@code tsc} (the kernel checked it is synchronized across CPUs), and native access is enabled (else
 * the JDK prints a warning into the application's stderr).
 */
public final class HostClock {
    private static final String STUB = "dev.aorta.agent.clock.TscStub";

    private static final MethodHandle TSC;
    private static final String DESCRIPTION;

    static {
        String[] why = new String[1];
        TSC = open(Selection.requested, why);
        DESCRIPTION = (TSC != null ? "tsc (rdtsc through FFM; ns by interpolation between nanoTime anchors)"
                : "System.nanoTime") + (why[0] != null ? " (" + why[0] + ")" : "");
    }

    /** TSC mode only; drain thread only (under the drainer's lock). */
    private static final TickTimeline TIMELINE = TSC == null ? null : new TickTimeline(HostClock::ticks, System::nanoTime);

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

    /** Whether ticks are the TSC's (else they are nanoTime's, and converting them is the identity). */
    public static boolean usesTsc() {
        return TIMELINE != null;
    }

    /**
     * Takes a new anchor (unless the last is under a millisecond old and {@code force} is false): the drain thread,
     * before it drains, so that what was recorded before now settles. Drain thread only.
     */
    public static void anchor(boolean force) {
        if (TIMELINE != null) {
            TIMELINE.anchor(force);
        }
    }

    /** The newest ticks that {@link #toNanos} converts for good: the newest anchor's (any, with nanoTime ticks). */
    public static long settledThrough() {
        return TIMELINE == null ? Long.MAX_VALUE : TIMELINE.settledThrough();
    }

    /** Host ns (CLOCK_MONOTONIC) of a value returned by {@link #ticks()}, up to {@link #settledThrough}. Drain thread only. */
    public static long toNanos(long ticks) {
        return TIMELINE == null ? ticks : TIMELINE.toNanos(ticks);
    }

    /** How far a converted time may be from CLOCK_MONOTONIC, in words; null with nanoTime ticks (exact). */
    public static String conversionError() {
        return TIMELINE == null ? null : String.format(java.util.Locale.ROOT,
                "TSC times are within %d ns of CLOCK_MONOTONIC (half the widest of %d anchors' reads; the narrowest: %d ns)",
                TIMELINE.uncertaintyNs(), TIMELINE.anchors(), TIMELINE.bestUncertaintyNs());
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
