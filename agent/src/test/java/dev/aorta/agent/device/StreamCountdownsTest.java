package dev.aorta.agent.device;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class StreamCountdownsTest {
    static final long BASE = 0x7f00_0000_1000L;

    @Test
    void roundRobinOverSixteenStreamsSamplesEveryStreamEverySixteenthLaunch() {
        // with one countdown for all streams, N = 16 over 16 streams sampled stream 0 only
        StreamCountdowns c = new StreamCountdowns(16);
        Map<Long, List<Integer>> sampledLaunches = new HashMap<>();
        for (int launch = 0; launch < 16 * 160; launch++) {
            long stream = BASE + (launch % 16) * 0x100L;
            if (c.due(stream)) {
                sampledLaunches.computeIfAbsent(stream, k -> new ArrayList<>()).add(launch / 16);
            }
        }

        assertThat(sampledLaunches).hasSize(16);
        // each stream's 1st, 17th, 33rd... launch: 10 of its 160
        assertThat(sampledLaunches.values()).allSatisfy(l -> assertThat(l).hasSize(10).startsWith(0, 16, 32));
    }

    @Test
    void theDefaultAndSpecialStreamsAreStreamsToo() {
        StreamCountdowns c = new StreamCountdowns(2);
        assertThat(List.of(c.due(0), c.due(1), c.due(2), c.due(0), c.due(1), c.due(2), c.due(0)))
                .containsExactly(true, true, true, false, false, false, true);
    }

    @Test
    void aStreamLaunchingLessThanNKernelsIsSampledOnce() {
        StreamCountdowns c = new StreamCountdowns(100);
        assertThat(c.due(BASE)).isTrue();
        for (int i = 0; i < 98; i++) {
            assertThat(c.due(BASE)).isFalse();
        }
    }

    @Test
    void streamsBeyondTheTableShareACountdownAndSaySo() {
        StreamCountdowns c = new StreamCountdowns(10);
        for (int i = 0; i < StreamCountdowns.CAPACITY; i++) {
            c.due(BASE + i * 0x100L);
        }
        assertThat(c.overflowed()).isFalse();
        long sampled = 0;
        for (int i = 0; i < 100; i++) {
            sampled += c.due(BASE + (StreamCountdowns.CAPACITY + i) * 0x100L) ? 1 : 0;
        }
        assertThat(c.overflowed()).isTrue();
        assertThat(sampled).isEqualTo(10);
    }

    @Test
    void threadsClaimingStreamsAtOnceGiveEachStreamOneSlot() throws Exception {
        StreamCountdowns c = new StreamCountdowns(1_000_000);
        Map<Long, AtomicLong> firsts = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 2000; i++) {
                    long stream = BASE + (i % 500) * 0x100L;
                    if (c.due(stream)) {
                        firsts.computeIfAbsent(stream, k -> new AtomicLong()).incrementAndGet();
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread t : threads) {
            t.join();
        }
        // every stream was sampled at its first launch (more than once only where threads decremented at once)
        assertThat(firsts).hasSize(500);
        assertThat(firsts.values()).allSatisfy(n -> assertThat(n.get()).isBetween(1L, 4L));
        // and each has one countdown, far from its next sample
        for (long stream : firsts.keySet()) {
            assertThat(c.due(stream)).isFalse();
        }
    }
}
