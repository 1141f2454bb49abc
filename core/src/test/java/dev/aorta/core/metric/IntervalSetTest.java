package dev.aorta.core.metric;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The interval algebra against a brute-force model: a boolean per nanosecond of a small time range. */
class IntervalSetTest {
    private static final int SPAN = 400;
    private final Random random = new Random();

    @Test
    void unionMergesOverlappingAndTouchingIntervalsGivenInAnyOrder() {
        IntervalSet u = IntervalSet.union(new long[] {10, 0, 5, 30}, new long[] {20, 5, 12, 30}, 4);
        assertThat(u.toString()).isEqualTo("[[0,20)]");
        assertThat(u.length()).isEqualTo(20);
    }

    @Test
    void clipKeepsOnlyTheWindow() {
        IntervalSet u = IntervalSet.union(new long[] {0, 50}, new long[] {40, 100}, 2);
        assertThat(u.clip(30, 60).toString()).isEqualTo("[[30,40), [50,60)]");
        assertThat(u.lengthWithin(30, 60)).isEqualTo(20);
        assertThat(u.gapsWithin(30, 60).toString()).isEqualTo("[[40,50)]");
    }

    @RepeatedTest(200)
    void everyOperationAgreesWithBruteForce() {
        long seed = random.nextLong();
        Random r = new Random(seed);
        boolean[] a = new boolean[SPAN];
        boolean[] b = new boolean[SPAN];
        IntervalSet sa = randomSet(r, a);
        IntervalSet sb = randomSet(r, b);
        long from = r.nextInt(SPAN);
        long to = from + r.nextInt(SPAN - (int) from + 1);
        assertThat(sa.length()).as("seed %d", seed).isEqualTo(count(x -> a[x]));
        assertThat(sa.union(sb).length()).as("seed %d", seed).isEqualTo(count(x -> a[x] || b[x]));
        assertThat(sa.intersect(sb).length()).as("seed %d", seed).isEqualTo(count(x -> a[x] && b[x]));
        assertThat(sa.minus(sb).length()).as("seed %d", seed).isEqualTo(count(x -> a[x] && !b[x]));
        assertThat(sa.clip(from, to).length()).as("seed %d", seed)
                .isEqualTo(count(x -> a[x] && x >= from && x < to));
        assertThat(sa.lengthWithin(from, to)).isEqualTo(sa.clip(from, to).length());
        assertThat(sa.gapsWithin(from, to).length()).isEqualTo((to - from) - sa.clip(from, to).length());
        assertDisjointSorted(sa.union(sb));
        assertDisjointSorted(sa.minus(sb));
    }

    private static IntervalSet randomSet(Random r, boolean[] bits) {
        int n = r.nextInt(12);
        long[] s = new long[n];
        long[] e = new long[n];
        for (int i = 0; i < n; i++) {
            s[i] = r.nextInt(SPAN);
            e[i] = Math.min(SPAN, s[i] + r.nextInt(60));
            for (long x = s[i]; x < e[i]; x++) {
                bits[(int) x] = true;
            }
        }
        return IntervalSet.union(s, e, n);
    }

    private interface At {
        boolean test(int x);
    }

    private static long count(At pred) {
        long n = 0;
        for (int x = 0; x < SPAN; x++) {
            if (pred.test(x)) {
                n++;
            }
        }
        return n;
    }

    private static void assertDisjointSorted(IntervalSet s) {
        for (int i = 1; i < s.size(); i++) {
            assertThat(s.start(i)).isGreaterThan(s.end(i - 1));
        }
    }
}
