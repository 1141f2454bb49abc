package dev.aorta.trainer.telemetry;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class TelemetrySamplerTest {
    /** A source that counts its reads and returns the read's index as the power. */
    private static final class CountingSource implements TelemetrySource {
        final AtomicInteger reads = new AtomicInteger();
        volatile String thread;

        @Override
        public TelemetrySample read() {
            thread = Thread.currentThread().getName();
            int n = reads.incrementAndGet();
            return new TelemetrySample(System.nanoTime(), 1500, 2600, n, 40, 50, 20, 1, 1);
        }
    }

    private static void awaitReads(CountingSource source, int n) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L; // generous: a loaded 2-core machine
        while (source.reads.get() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(source.reads.get()).isGreaterThanOrEqualTo(n);
    }

    @Test
    void samplesOnItsOwnThreadAndSummarisesTheSamplesOfAStepsWindow() throws InterruptedException {
        CountingSource source = new CountingSource();
        List<String> warnings = new CopyOnWriteArrayList<>();
        try (TelemetrySampler sampler = new TelemetrySampler(source, 2, warnings::add)) {
            long start = System.nanoTime();
            int before = source.reads.get();
            awaitReads(source, before + 3);
            long end = System.nanoTime();
            TelemetrySummary s = sampler.summarise(start, end);
            assertThat(s.samples()).isGreaterThanOrEqualTo(2);
            assertThat(s.powerMaxW()).isGreaterThan(s.powerW()); // the counter grew during the window
            assertThat(source.thread).isEqualTo("aorta-telemetry").isNotEqualTo(Thread.currentThread().getName());
            // a later window with no sample in it reports the newest one taken before its end
            TelemetrySummary later = sampler.summarise(Long.MAX_VALUE - 1, Long.MAX_VALUE);
            assertThat(later.samples()).isZero();
        }
        assertThat(warnings).isEmpty();
    }

    @Test
    void closeStopsTheThread() throws InterruptedException {
        CountingSource source = new CountingSource();
        TelemetrySampler sampler = new TelemetrySampler(source, 1, m -> { });
        awaitReads(source, 2);
        sampler.close();
        assertThat(sampler.running()).isFalse();
        int after = source.reads.get();
        Thread.sleep(50);
        assertThat(source.reads.get()).isEqualTo(after);
    }

    @Test
    void aFailingSourceIsReportedOnceAndSamplingStops() throws InterruptedException {
        AtomicInteger calls = new AtomicInteger();
        List<String> warnings = new CopyOnWriteArrayList<>();
        try (TelemetrySampler sampler = new TelemetrySampler(() -> {
            calls.incrementAndGet();
            throw new IllegalStateException("nvmlDeviceGetPowerUsage failed: GPU is lost");
        }, 1, warnings::add)) {
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (sampler.running() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            Thread.sleep(20);
            assertThat(sampler.running()).isFalse();
            assertThat(calls.get()).isEqualTo(1);
            assertThat(warnings).containsExactly("telemetry stopped: nvmlDeviceGetPowerUsage failed: GPU is lost");
            assertThat(sampler.summarise(0, System.nanoTime())).isNull();
        }
    }
}
