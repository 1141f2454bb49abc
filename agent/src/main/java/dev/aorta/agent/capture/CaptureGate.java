package dev.aorta.agent.capture;

import java.util.function.LongSupplier;

/**
 * The hot path's one question, asked by {@code Recorder} as each intercepted call begins: is anything recorded now,
 * and if so, when is now? A plain static volatile so that with {@code between-windows=off} an intercepted call costs
 * one volatile read (a plain load on x86) and a branch, and no clock read, outside windows. Written only by
 * {@link CaptureWindows}, under its lock.
 *
 * <p>The gate's value changes at every opening (a new number each time), so that {@link #timeIfOpen} can tell that
 * the gate shut, or shut and opened again, while it read the clock: a call that saw the gate open and then read the
 * clock after the window's end was stamped would be kept with a start after its window's end, and labelled with no
 * window. Together with {@link CaptureWindows} stamping a window's start before it opens the gate and its end after
 * it shuts it, every start kept lies within its window as written. Ordering: the shutting is a volatile write (a
 * locked instruction on x86) before the end's clock read; a call's second look is a volatile read after its clock
 * read, which the JIT does not move across (the clock is a call). {@code rdtsc} is not itself ordered with the load
 * after it, so the CPU may overlap the two by a few ns; that is all the slack left, far below the µs the race had.
 * Inside windows the second look costs one more plain load; outside them ({@code between-windows=off}) nothing.
 */
public final class CaptureGate {
    /** What {@link #timeIfOpen} returns for a call begun while the gate was shut; clocks never read this value. */
    public static final long SHUT = Long.MIN_VALUE;

    /** {@code 0} while shut; otherwise the number of this opening. */
    private static volatile long state = 1;
    private static long openings = 1;

    private CaptureGate() {
    }

    /**
     * The clock's reading if the gate was open both before and after it was read, else {@link #SHUT}. A call whose
     * reading raced with the gate shutting is dropped, as if it had begun after the window: the window's end is
     * read after the gate shut, so it could not be kept within its window.
     */
    public static long timeIfOpen(LongSupplier clock) {
        long opened = state;
        if (opened == 0) {
            return SHUT;
        }
        long now = clock.getAsLong();
        return state == opened ? now : SHUT;
    }

    /** Whether intercepted calls are recorded now. */
    public static boolean isOpen() {
        return state != 0;
    }

    /** Opens the gate (a new opening) unless it is open already. */
    static synchronized void open() {
        if (state == 0) {
            state = ++openings;
        }
    }

    /** Shuts the gate; calls reading the clock now drop themselves ({@link #timeIfOpen}). */
    static synchronized void shut() {
        state = 0;
    }

    /** Opens or shuts the gate. */
    static void set(boolean open) {
        if (open) {
            open();
        } else {
            shut();
        }
    }
}
