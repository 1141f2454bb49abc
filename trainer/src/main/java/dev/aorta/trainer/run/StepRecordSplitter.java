package dev.aorta.trainer.run;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;

/**
 * Collects CUPTI's records every few steps instead of after every step, and splits them into steps. A CUPTI flush
 * returns every record of the steps that ended only while the device is idle (while it runs the next step, a flush
 * can lack the last ones), and it costs the host about a millisecond: flushing after every step put that between
 * every two steps. So the trainer flushes at the end of every {@code flushEvery}-th step, and of the last, before
 * it issues the next one, and this class splits what came by the steps' markers.
 *
 * <p>Each step is bracketed on the compute stream by a start and an end marker, memsets of two odd sizes that no
 * operation of the model uses (its memsets are of whole floats), and every stream's first operation of a step waits
 * for its start marker, which the compute stream runs after the previous end marker. So step s's records are those
 * that start between its start marker's start and its end marker's end.
 */
final class StepRecordSplitter {
    /** The start marker's memset size. */
    static final long START_MARKER_BYTES = 257;
    /** The end marker's memset size. */
    static final long END_MARKER_BYTES = 259;

    private final Runnable flush;
    private final Queue<DeviceActivity> delivered;
    private final long computeStream;
    private final int flushEvery;
    private int sinceFlush;

    /**
     * @param flush         has CUPTI hand over every record it holds ({@code CuptiTracer::flush})
     * @param delivered     where the tracer's consumer puts the records it is handed
     * @param computeStream the stream the markers run on
     * @param flushEvery    steps between two flushes, at least 1
     */
    StepRecordSplitter(Runnable flush, Queue<DeviceActivity> delivered, long computeStream, int flushEvery) {
        if (flushEvery < 1) {
            throw new IllegalArgumentException("flush every " + flushEvery + " steps: expected at least 1");
        }
        this.flush = flush;
        this.delivered = delivered;
        this.computeStream = computeStream;
        this.flushEvery = flushEvery;
    }

    /**
     * Called once a step has ended, with the device idle. Every {@code flushEvery}-th call flushes and returns the
     * records of the steps ended since the last flush, one list per step in order; the others return nothing.
     */
    List<List<DeviceActivity>> stepEnded() {
        sinceFlush++;
        return sinceFlush < flushEvery ? List.of() : flushPending();
    }

    /**
     * With the device idle after the last step: the records of the steps ended since the last flush (none if
     * there are none). A step whose markers did not both come gets an empty list.
     */
    List<List<DeviceActivity>> flushPending() {
        if (sinceFlush == 0) {
            return List.of();
        }
        int steps = sinceFlush;
        sinceFlush = 0;
        flush.run();
        List<DeviceActivity> all = new ArrayList<>();
        for (DeviceActivity a = delivered.poll(); a != null; a = delivered.poll()) {
            all.add(a);
        }
        all.sort(Comparator.comparingLong(DeviceActivity::startNs));
        List<DeviceActivity> starts = all.stream().filter(a -> isMarker(a, START_MARKER_BYTES)).toList();
        List<DeviceActivity> ends = all.stream().filter(a -> isMarker(a, END_MARKER_BYTES)).toList();
        List<List<DeviceActivity>> out = new ArrayList<>();
        for (int i = 0; i < steps; i++) {
            if (i >= starts.size() || i >= ends.size() || ends.get(i).startNs() < starts.get(i).startNs()) {
                out.add(List.of());
                continue;
            }
            long from = starts.get(i).startNs();
            long to = ends.get(i).endNs();
            out.add(all.stream().filter(a -> a.startNs() >= from && a.startNs() < to).toList());
        }
        return out;
    }

    private boolean isMarker(DeviceActivity a, long bytes) {
        return a.kind() == ActivityKind.MEMSET && a.stream() == computeStream && a.bytes() == bytes;
    }
}
