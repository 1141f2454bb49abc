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

    @Test
    void keysAlreadyInOrderKeepTheirIndexes() {
        assertThat(StableOrder.byKey(5, i -> i / 2)).containsExactly(0, 1, 2, 3, 4);
    }
}
