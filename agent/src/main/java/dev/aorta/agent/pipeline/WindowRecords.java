package dev.aorta.agent.pipeline;

import dev.aorta.agent.AgentLog;
import dev.aorta.agent.capture.CaptureWindows;
import dev.aorta.agent.clock.ClockAnchors;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Marker;

/**
 * What a capture window leaves in the output: clock anchors when it opens (so that other profilers' traces of the
 * window can be placed), a {@link Marker.Kind#CAPTURE} marker when it closes, and the device source running only
 * in windows. It also publishes the open window as the system property {@link #WINDOW_PROPERTY}, which
 * {@code aorta capture} reads to name the window it was refused for.
 */
public final class WindowRecords implements CaptureWindows.Listener {
    public static final String WINDOW_PROPERTY = "aorta.agent.window";

    private final Drainer drainer;
    private final ClockAnchors clocks;
    private final int rank;

    public WindowRecords(Drainer drainer, ClockAnchors clocks, int rank) {
        this.drainer = drainer;
        this.clocks = clocks;
        this.rank = rank;
    }

    @Override
    public void windowOpened(long index, long startNs, String reason) {
        clocks.take().forEach(drainer::submit);
        System.setProperty(WINDOW_PROPERTY, "capture window " + index + " (" + reason + ")");
        AgentLog.info("capture window " + index + " opened (" + reason + ")");
    }

    @Override
    public void windowClosed(long index, long startNs, long endNs, String reason) {
        System.clearProperty(WINDOW_PROPERTY);
        AgentLog.info(String.format(java.util.Locale.ROOT, "capture window %d closed after %.3f s", index,
                (endNs - startNs) / 1e9));
        Drainer.wake();
    }

    /** The marker carries the edges the window's records were placed in by, exactly. */
    @Override
    public void windowSettled(long index, long startNs, long endNs) {
        drainer.submit(new Marker(Marker.Kind.CAPTURE, "capture " + index, rank, index, startNs, endNs,
                ClockDomain.HOST_MONOTONIC));
    }

    @Override
    public void deviceActivity(boolean on) {
        drainer.switchDevice(on);
    }
}
