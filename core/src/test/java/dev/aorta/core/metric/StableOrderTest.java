package dev.aorta.core.metric;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** StableOrder gives the order a stable sort by the key gives (List.sort with a key comparator). */
class StableOrderTest {
    @Test
    void theOrderOfAStableSortByTheKey() {
        Random random = new Random(17);
        for (int n : new int[] {0, 1, 2, 3, 7, 64, 1000, 4097}) {
            long[] keys = random.longs(n, 0, Math.max(1, n / 4)).toArray();  // many equal keys
            List<Integer> expected = new ArrayList<>(IntStream.range(0, n).boxed().toList());
            expected.sort((i, j) -> Long.compare(keys[i], keys[j]));
            assertThat(StableOrder.byKey(n, i -> keys[i])).as("n = %d", n)
                    .containsExactly(expected.stream().mapToInt(Integer::intValue).toArray());
        }
    }

    /** Keys too far apart to pack beside an index (the merge sort) and keys that just fit (the packed sort). */
    @Test
    void theOrderOfAStableSortForKeysOfEveryRange() {
        Random random = new Random(23);
        int n = 5000;  // 13 bits of index: ranges up to 2^50 pack
        for (long range : new long[] {1L << 49, (1L << 50) - 1, 1L << 50, Long.MAX_VALUE}) {
            long base = random.nextBoolean() ? -range / 2 : 1_700_000_000_000_000_000L - range;
            long[] keys = new long[n];
            for (int i = 0; i < n; i++) {  // both ends of the range present, many equal keys between
                keys[i] = i == 0 ? base : i == 1 ? base + range : base + (random.nextLong(64) * (range / 64));
            }
            List<Integer> expected = new ArrayList<>(IntStream.range(0, n).boxed().toList());
            expected.sort((i, j) -> Long.compare(keys[i], keys[j]));
            assertThat(StableOrder.byKey(n, i -> keys[i])).as("range %d", range)
                    .containsExactly(expected.stream().mapToInt(Integer::intValue).toArray());
        }
        long[] extremes = {Long.MAX_VALUE, Long.MIN_VALUE, 0, Long.MIN_VALUE, Long.MAX_VALUE};
        assertThat(StableOrder.byKey(5, i -> extremes[i])).containsExactly(1, 3, 2, 0, 4);
    }

    @Test
    void keysAlreadyInOrderKeepTheirIndexes() {
        assertThat(StableOrder.byKey(5, i -> i / 2)).containsExactly(0, 1, 2, 3, 4);
    }
}
