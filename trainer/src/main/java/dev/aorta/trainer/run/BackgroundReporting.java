package dev.aorta.trainer.run;

import dev.aorta.core.event.DeviceActivity;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Reports ended steps on a thread of its own, in order, so that the thread that issues the steps only waits for a
 * step's end, reads its loss, collects its records from CUPTI and issues the next one: building the step's profile
 * and writing its metrics line, trace and log line (milliseconds a step at the default shape) then overlap the next
 * step instead of delaying it. The records are collected by the issuing thread while the device is idle, right
 * after the step ended: a CUPTI flush then returns every record of the step (while the device runs the next step,
 * a flush can lack the last ones). {@link #finish()} waits until every submitted step is reported.
 */
final class BackgroundReporting implements AutoCloseable {
    /** What the issuing thread knows of a step once it ended; host times from {@link System#nanoTime()}. */
    record EndedStep(int step, double loss, double gradNorm, double lr, boolean applied, long hostStartNs,
                     long hostEndNs, List<DeviceActivity> records) {
        EndedStep {
            records = List.copyOf(records);
        }
    }

    /** Reports one step: its metrics line, trace, log line and whatever else the trainer derives from records. */
    interface Sink {
        void report(EndedStep step) throws IOException;
    }

    private static final EndedStep END = new EndedStep(-1, 0, 0, 0, false, 0, 0, List.of());

    private final Sink sink;
    private final BlockingQueue<EndedStep> ended = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile Throwable failure;

    BackgroundReporting(Sink sink) {
        this.sink = sink;
        this.thread = Thread.ofPlatform().daemon().name("aorta-step-reporter").start(this::run);
    }

    /** Hands an ended step over; throws what the reporting thread failed with, if it did. */
    void submit(EndedStep step) {
        rethrow();
        ended.add(step);
    }

    /** Waits until every submitted step is reported, then throws what failed, if anything did. */
    void finish() throws IOException {
        ended.add(END);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the last steps were reported", e);
        }
        if (failure instanceof IOException io) {
            throw io;
        }
        rethrow();
    }

    /** After a failure of the issuing thread: lets the reporting thread write what it has, for a while. */
    @Override
    public void close() {
        if (thread.isAlive()) {
            ended.add(END);
            try {
                thread.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        try {
            for (EndedStep e = ended.take(); e != END; e = ended.take()) {
                sink.report(e);
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    private void rethrow() {
        Throwable t = failure;
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error err) {
            throw err;
        }
        if (t != null) {
            throw new IllegalStateException("reporting a step failed: " + t.getMessage(), t);
        }
    }
}
