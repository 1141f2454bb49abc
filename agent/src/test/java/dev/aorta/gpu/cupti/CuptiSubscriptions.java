package dev.aorta.gpu.cupti;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the {@link CuptiTracer} double counts: tracers started and not stopped, the CUPTI subscriptions a real tracer
 * would hold. Kept out of the double, whose public members must all exist in the real tracer.
 */
public final class CuptiSubscriptions {
    private static final AtomicInteger HELD = new AtomicInteger();

    private CuptiSubscriptions() {
    }

    static void started() {
        HELD.incrementAndGet();
    }

    static void stopped() {
        HELD.decrementAndGet();
    }

    /** Subscriptions held now. */
    public static int held() {
        return HELD.get();
    }
}
