package dev.aorta.trainer.telemetry;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@code telemetry.nvml}: reads a {@link TelemetrySource} every {@code telemetry.interval_ms} on one daemon thread,
 * so the training thread never waits for the driver; the training thread asks for each step's
 * {@link TelemetrySummary} when the step has ended. Only the samples a later step can still need are kept (the
 * latest one before the last summarised step's end, and every one after it). A failing read is reported once
 * through {@code warn} and the sampler stops; training goes on with lines that have no telemetry.
 */
public final class TelemetrySampler implements AutoCloseable {
    private final TelemetrySource source;
    private final Consumer<String> warn;
    private final ScheduledExecutorService thread;
    private final Deque<TelemetrySample> samples = new ArrayDeque<>();

    public TelemetrySampler(TelemetrySource source, long intervalMs, Consumer<String> warn) {
        this.source = source;
        this.warn = warn;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "aorta-telemetry");
            t.setDaemon(true);
            return t;
        });
        thread.scheduleAtFixedRate(this::sample, 0, intervalMs, TimeUnit.MILLISECONDS);
    }

    private void sample() {
        TelemetrySample s;
        try {
            s = source.read();
        } catch (RuntimeException e) {
            warn.accept("telemetry stopped: " + e.getMessage());
            thread.shutdown();
            return;
        }
        synchronized (samples) {
            samples.addLast(s);
        }
    }

    /** The summary of the samples taken in [startNs, endNs] (host {@link System#nanoTime()}); see {@link TelemetrySummary}. */
    public TelemetrySummary summarise(long startNs, long endNs) {
        List<TelemetrySample> inStep = new ArrayList<>();
        TelemetrySample before = null;
        synchronized (samples) {
            for (TelemetrySample s : samples) {
                if (s.timeNs() < startNs) {
                    before = s;
                } else if (s.timeNs() <= endNs) {
                    inStep.add(s);
                }
            }
            // what the next step may still need: the latest sample up to this step's end, and any after it
            while (samples.size() > 1 && samples.peekFirst().timeNs() <= endNs
                    && samples.stream().skip(1).findFirst().orElseThrow().timeNs() <= endNs) {
                samples.removeFirst();
            }
        }
        return TelemetrySummary.of(inStep, before, endNs);
    }

    /** Whether the sampling thread is still running (it stops on close or after a failed read). */
    public boolean running() {
        return !thread.isShutdown();
    }

    /** Stops sampling and waits for a read under way (NVML answers in microseconds; 5 s is a hung driver). */
    @Override
    public void close() {
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                warn.accept("the telemetry thread did not stop within 5 s (NVML hung?); leaving it behind");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
