package dev.aorta.agent.clock;

import dev.aorta.agent.AgentLog;
import dev.aorta.agent.recorder.HostClock;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Anchors that let other profilers' traces meet ours: CLOCK_MONOTONIC (our records' clock) read together with
 * CLOCK_REALTIME (Nsight Systems and PyTorch-profiler traces carry epoch times) and CLOCK_BOOTTIME (rocprofv3's
 * clock). Taken at agent start and at every capture window, because the clocks drift apart (NTP slews REALTIME;
 * BOOTTIME advances while the host is suspended). Each pair is read between two monotonic reads and placed at
 * their midpoint, so its error is half the bracket (a few hundred ns). CUPTI's own anchor comes from its source.
 */
public final class ClockAnchors {
    private static final String BOOT_STUB = "dev.aorta.agent.clock.BootTimeStub";

    private final LongSupplier bootTime;
    private final String bootTimeMissing;

    private ClockAnchors(LongSupplier bootTime, String bootTimeMissing) {
        this.bootTime = bootTime;
        this.bootTimeMissing = bootTimeMissing;
    }

    /** BOOTTIME needs FFM (JVM >= 22) with native access enabled, else the JDK would warn in the application's stderr. */
    public static ClockAnchors open() {
        if (Runtime.version().feature() < 22) {
            return new ClockAnchors(null, "CLOCK_BOOTTIME needs Java 22 (FFM); this is Java " + Runtime.version().feature());
        }
        if (!HostClock.nativeAccessEnabled()) {
            return new ClockAnchors(null, "CLOCK_BOOTTIME needs native access (--enable-native-access=ALL-UNNAMED)");
        }
        try {
            LongSupplier reader = (LongSupplier) Class.forName(BOOT_STUB, true, ClockAnchors.class.getClassLoader())
                    .getMethod("open").invoke(null);
            return new ClockAnchors(reader, null);
        } catch (Throwable t) {
            return new ClockAnchors(null, "clock_gettime(CLOCK_BOOTTIME) failed: " + t);
        }
    }

    /** Anchors from the given BOOTTIME reader (null: none), for tests. */
    public static ClockAnchors of(LongSupplier bootTime) {
        return new ClockAnchors(bootTime, bootTime == null ? "no CLOCK_BOOTTIME reader" : null);
    }

    /** Why no BOOTTIME anchors are written, or null when they are. */
    public String bootTimeMissing() {
        return bootTimeMissing;
    }

    /** One anchor per clock, all from this instant: host-monotonic to epoch, and to boottime where it can be read. */
    public List<ClockAnchor> take() {
        List<ClockAnchor> out = new ArrayList<>(2);
        long before = System.nanoTime();
        Instant now = Instant.now();
        long after = System.nanoTime();
        out.add(new ClockAnchor(ClockDomain.HOST_MONOTONIC, before + (after - before) / 2, ClockDomain.EPOCH,
                now.getEpochSecond() * 1_000_000_000L + now.getNano()));
        if (bootTime != null) {
            try {
                before = System.nanoTime();
                long boot = bootTime.getAsLong();
                after = System.nanoTime();
                out.add(new ClockAnchor(ClockDomain.HOST_MONOTONIC, before + (after - before) / 2, ClockDomain.BOOTTIME,
                        boot));
            } catch (RuntimeException e) {
                AgentLog.once("boottime", "reading CLOCK_BOOTTIME failed (" + e + "); this anchor has no boottime pair");
            }
        }
        return out;
    }
}
