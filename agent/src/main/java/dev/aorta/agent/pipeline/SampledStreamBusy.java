package dev.aorta.agent.pipeline;

import dev.aorta.core.metric.SampledBusyTime;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What sampled event pairs say about each stream's busy time ({@link SampledBusyTime}): the stream's kernel
 * launches (every one, from the API records) and its sampled kernels' durations, per window and over the whole run.
 * A launch belongs to the window its call began in, a sample to the window its kernel began in. On the drain thread
 * only; launch times are kept in primitive arrays (one per stream) until no window can need them.
 */
final class SampledStreamBusy {
    private final Map<Long, PerStream> streams = new TreeMap<>();

    private static final class PerStream {
        /** Launch start times (host ns) from {@code first} to {@code n}; older ones were forgotten. */
        long[] launchTimes = new long[64];
        int first;
        int n;
        /** Sampled kernels: start (host ns) and duration, same scheme. */
        long[] sampleStarts = new long[16];
        long[] sampleDurations = new long[16];
        int firstSample;
        int samples;
        /** Whole run. */
        long runLaunches;
        int runSampled;
        double runSum;
        double runSumOfSquares;
    }

    void launch(long stream, long startNs) {
        PerStream s = streams.computeIfAbsent(stream, k -> new PerStream());
        if (s.n == s.launchTimes.length) {
            s.launchTimes = compacted(s.launchTimes, s.first, s.n);
            s.n -= s.first;
            s.first = 0;
        }
        s.launchTimes[s.n++] = startNs;
        s.runLaunches++;
    }

    void sample(long stream, long startNs, long durationNs) {
        PerStream s = streams.computeIfAbsent(stream, k -> new PerStream());
        if (s.samples == s.sampleStarts.length) {
            s.sampleStarts = compacted(s.sampleStarts, s.firstSample, s.samples);
            s.sampleDurations = compacted(s.sampleDurations, s.firstSample, s.samples);
            s.samples -= s.firstSample;
            s.firstSample = 0;
        }
        s.sampleStarts[s.samples] = startNs;
        s.sampleDurations[s.samples++] = durationNs;
        s.runSampled++;
        s.runSum += durationNs;
        s.runSumOfSquares += (double) durationNs * durationNs;
    }

    /** Moves the live part to the front, into an array twice as large when it is more than half full. */
    private static long[] compacted(long[] a, int first, int n) {
        int live = n - first;
        long[] to = live * 2 > a.length ? new long[a.length * 2] : a;
        System.arraycopy(a, first, to, 0, live);
        return to;
    }

    /**
     * Per stream with launches in [from, to): its estimate, or null when none of its kernels there was sampled
     * (the count of launches is then all there is). Streams in address order.
     */
    Map<Long, Estimate> window(long from, long to) {
        Map<Long, Estimate> out = new LinkedHashMap<>();
        for (Map.Entry<Long, PerStream> e : streams.entrySet()) {
            PerStream s = e.getValue();
            long launches = 0;
            for (int i = s.first; i < s.n; i++) {
                if (s.launchTimes[i] >= from && s.launchTimes[i] < to) {
                    launches++;
                }
            }
            double[] durations = new double[s.samples - s.firstSample];
            int k = 0;
            for (int i = s.firstSample; i < s.samples; i++) {
                if (s.sampleStarts[i] >= from && s.sampleStarts[i] < to) {
                    durations[k++] = s.sampleDurations[i];
                }
            }
            if (launches > 0) {
                // a kernel sampled here but launched just before the window counts as a launch of it too
                launches = Math.max(launches, k);
                out.put(e.getKey(), new Estimate(launches,
                        k == 0 ? null : SampledBusyTime.of(launches, Arrays.copyOf(durations, k))));
            }
        }
        return out;
    }

    /** Over the whole run, per stream that launched kernels. */
    Map<Long, Estimate> run() {
        Map<Long, Estimate> out = new LinkedHashMap<>();
        for (Map.Entry<Long, PerStream> e : streams.entrySet()) {
            PerStream s = e.getValue();
            if (s.runLaunches == 0) {
                continue;
            }
            SampledBusyTime b = null;
            if (s.runSampled > 0) {
                double mean = s.runSum / s.runSampled;
                double variance = s.runSampled < 2 ? 0
                        : Math.max(0, (s.runSumOfSquares - s.runSampled * mean * mean) / (s.runSampled - 1));
                b = SampledBusyTime.of(Math.max(s.runLaunches, s.runSampled), s.runSampled, mean, Math.sqrt(variance));
            }
            out.put(e.getKey(), new Estimate(s.runLaunches, b));
        }
        return out;
    }

    /** Launch times held for windows still to come, all streams together. */
    long heldLaunches() {
        long held = 0;
        for (PerStream s : streams.values()) {
            held += s.n - s.first;
        }
        return held;
    }

    /** Forgets launches and samples that began before {@code keepFrom} (the run totals stay). */
    void forgetBefore(long keepFrom) {
        for (PerStream s : streams.values()) {
            while (s.first < s.n && s.launchTimes[s.first] < keepFrom) {
                s.first++;
            }
            while (s.firstSample < s.samples && s.sampleStarts[s.firstSample] < keepFrom) {
                s.firstSample++;
            }
        }
    }

    /** A stream's launches and, when any was sampled, its busy-time estimate. */
    record Estimate(long launches, SampledBusyTime busy) {
    }
}
