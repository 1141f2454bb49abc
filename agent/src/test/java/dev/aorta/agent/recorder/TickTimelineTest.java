package dev.aorta.agent.recorder;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class TickTimelineTest {

    /** A TSC reading, the true time it was taken at, and what it converted to when it first could. */
    private static final class Reading {
        final long ticks;
        final long trueNs;
        long firstNs = Long.MIN_VALUE;

        Reading(long ticks, long trueNs) {
            this.ticks = ticks;
            this.trueNs = trueNs;
        }
    }

    /**
     * 400 drain cycles of 2 ms with readings between them, under heavy load (one clock read in ten preempted for
     * 1-5 µs): each reading is converted at the first anchor after it, as the drain does, and again at the end.
     */
    private static List<Reading> drained(TickTimeline timeline, FakeTsc host, List<Reading> readings) {
        SplittableRandom when = new SplittableRandom(7);
        List<Reading> waiting = new ArrayList<>();
        for (int cycle = 0; cycle < 400; cycle++) {
            for (int i = 0; i < 40; i++) {
                host.run(when.nextLong(50_000));
                long trueNs = host.now();
                Reading r = new Reading(host.ticks(), trueNs);
                readings.add(r);
                waiting.add(r);
            }
            timeline.anchor(false);
            long settled = timeline.settledThrough();
            waiting.removeIf(r -> {
                if (r.ticks > settled) {
                    return false;
                }
                r.firstNs = timeline.toNanos(r.ticks);
                return true;
            });
        }
        assertThat(waiting).as("all but the last cycle's readings settled").hasSizeLessThanOrEqualTo(40);
        return readings;
    }

    @Test
    void aReadingConvertsToTheSameNsWheneverItIsConvertedWithinTheAnchorsUncertainty() {
        FakeTsc host = new FakeTsc(42, 0.10);
        TickTimeline timeline = new TickTimeline(host::ticks, host::nanoTime);
        List<Reading> readings = drained(timeline, host, new ArrayList<>());

        long moved = 0;
        long worstError = 0;
        for (Reading r : readings) {
            if (r.firstNs == Long.MIN_VALUE) {
                continue;
            }
            moved = Math.max(moved, Math.abs(timeline.toNanos(r.ticks) - r.firstNs));
            worstError = Math.max(worstError, Math.abs(r.firstNs - r.trueNs));
        }
        assertThat(moved).as("ns a reading moved between its first conversion and one 400 anchors later").isZero();
        assertThat(worstError).as("worst error against the true time, ns").isLessThanOrEqualTo(timeline.uncertaintyNs() + 1);
        // one read in ten preempted for µs, yet every anchor found a tight pair: 20-40 ns reads around a 10-20 ns one
        assertThat(timeline.uncertaintyNs()).as("stated uncertainty, ns").isLessThan(60);
    }

    @Test
    void readingsInOrderConvertInOrder() {
        FakeTsc host = new FakeTsc(3, 0.10);
        TickTimeline timeline = new TickTimeline(host::ticks, host::nanoTime);
        List<Reading> readings = drained(timeline, host, new ArrayList<>());
        long last = Long.MIN_VALUE;
        for (Reading r : readings) {
            if (r.firstNs != Long.MIN_VALUE) {
                assertThat(r.firstNs).isGreaterThanOrEqualTo(last);
                last = r.firstNs;
            }
        }
    }

    @Test
    void onlyReadingsUpToTheNewestAnchorAreSettled() {
        FakeTsc host = new FakeTsc(1, 0);
        TickTimeline timeline = new TickTimeline(host::ticks, host::nanoTime);
        long before = host.ticks();
        assertThat(before).isGreaterThan(timeline.settledThrough());
        timeline.anchor(false);
        assertThat(timeline.settledThrough()).as("no anchor within a millisecond of the last").isLessThan(before);
        timeline.anchor(true);
        assertThat(timeline.settledThrough()).isGreaterThanOrEqualTo(before);
    }
}
