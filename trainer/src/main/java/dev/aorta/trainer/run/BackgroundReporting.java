package dev.aorta.trainer.run;

import dev.aorta.core.event.DeviceActivity;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Reports ended steps on a thread of its own, in order, so that the thread that issues the steps only waits for a
 * step's end, reads its loss and issues the next one: building the step's profile and writing its metrics line,
 * trace and log line (milliseconds a step at the default shape) then overlap the next steps instead of delaying
 * them. A step's records come later than its loss, every few steps ({@link StepRecordSplitter}): {@link #ended}
 * keeps the step until {@link #recordsCame} pairs it with them, in order. {@link #finish()} waits until every
 * step that has its records is reported.
 */
final class BackgroundReporting implements AutoCloseable {
    /** What the issuing thread knows of a step once it ended; host times from {@link System#nanoTime()}. */
    record EndedStep(int step, double loss, double gradNorm, double lr, boolean applied, long hostStartNs,
                     long hostEndNs, List<DeviceActivity> records) {
        EndedStep {
            records = List.copyOf(records);
        }

        EndedStep(int step, double loss, double gradNorm, double lr, boolean applied, long hostStartNs,
                  long hostEndNs) {
            this(step, loss, gradNorm, lr, applied, hostStartNs, hostEndNs, List.of());
        }

        EndedStep withRecords(List<DeviceActivity> r) {
            return new EndedStep(step, loss, gradNorm, lr, applied, hostStartNs, hostEndNs, r);
        }
    }

    /** Reports one step: its metrics line, trace, log line and whatever else the trainer derives from records. */
    interface Sink {
        void report(EndedStep step) throws IOException;
    }

    private static final EndedStep END = new EndedStep(-1, 0, 0, 0, false, 0, 0, List.of());

    private final Sink sink;
    /** Ended steps whose records have not come yet; the issuing thread's alone. */
    private final Deque<EndedStep> awaitingRecords = new ArrayDeque<>();
    private final BlockingQueue<EndedStep> ended = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile Throwable failure;

    BackgroundReporting(Sink sink) {
        this.sink = sink;
        this.thread = Thread.ofPlatform().daemon().name("aorta-step-reporter").start(this::run);
    }

    /** A step has ended: it is reported once its records came. Throws what the reporting thread failed with. */
    void ended(EndedStep step) {
        rethrow();
        awaitingRecords.add(step);
    }

    /** The records of the oldest ended steps, one list per step in order: those steps go to the reporting thread. */
    void recordsCame(List<List<DeviceActivity>> steps) {
        rethrow();
        if (steps.size() > awaitingRecords.size()) {
            throw new IllegalStateException("records of " + steps.size() + " steps came, but " + awaitingRecords.size()
                    + " ended steps were waiting for them");
        }
        for (List<DeviceActivity> records : steps) {
            ended.add(awaitingRecords.poll().withRecords(records));
        }
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
