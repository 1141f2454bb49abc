package dev.aorta.agent.recorder;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CallBufferTest {

    @Test
    void rowsComeOutInOrderWithEveryField() {
        CallBuffer b = new CallBuffer(64, Thread.currentThread(), 0);
        b.put(7, 100, 200, 0xABC, 0, 1, 2, 3, 4, 5, 6, 7, 8);
        b.put(Integer.MAX_VALUE, -5, Long.MAX_VALUE, -1, -999, Long.MIN_VALUE, -2, 0, 0, 0, 0, 0, Long.MAX_VALUE);
        List<long[]> rows = new ArrayList<>();
        b.drain((buf, seq, r, o) -> {
            long[] fields = new long[13];
            fields[0] = CallBuffer.id(r, o);
            fields[1] = r[o + CallBuffer.START];
            fields[2] = r[o + CallBuffer.END];
            fields[3] = r[o + CallBuffer.STREAM];
            fields[4] = CallBuffer.result(r, o);
            System.arraycopy(r, o + CallBuffer.ARG0, fields, 5, 8);
            rows.add(fields);
        });
        assertThat(rows).containsExactly(new long[] {7, 100, 200, 0xABC, 0, 1, 2, 3, 4, 5, 6, 7, 8},
                new long[] {Integer.MAX_VALUE, -5, Long.MAX_VALUE, -1, -999, Long.MIN_VALUE, -2, 0, 0, 0, 0, 0,
                        Long.MAX_VALUE});
        assertThat(b.isEmpty()).isTrue();
    }

    @Test
    void aFullRingDropsAndCountsInsteadOfWaiting() {
        CallBuffer b = new CallBuffer(64, Thread.currentThread(), 0);
        for (int i = 0; i < 100; i++) {
            b.put(i, i, i, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        }
        List<Long> ids = new ArrayList<>();
        assertThat(b.drain((buf, seq, r, o) -> ids.add(r[o]))).isEqualTo(64);
        assertThat(ids).first().isEqualTo(0L);
        assertThat(ids).last().isEqualTo(63L);
        assertThat(b.dropped()).isEqualTo(36);
        b.put(1000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        assertThat(b.drain((buf, seq, r, o) -> ids.add(r[o]))).isEqualTo(1);
        assertThat(ids).last().isEqualTo(1000L);
    }

    @Test
    void claimingRowsAheadNeverTouchesARowTheDrainThreadHasNotRead() {
        CallBuffer b = new CallBuffer(64, Thread.currentThread(), 0);
        List<Long> checked = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 64; i++) {  // fills the ring: the claims near its end must spare its first rows
                long v = 1000L * round + i + 1;
                b.put((int) v, v, v, v, 0, v, v, v, v, v, v, v, v);
            }
            b.drain((buf, seq, r, o) -> {
                long v = CallBuffer.id(r, o);
                for (int f = CallBuffer.START; f < CallBuffer.WIDTH; f++) {
                    assertThat(r[o + f]).as("field %d of record %d", f, v).isEqualTo(v);
                }
                checked.add(v);
            });
        }
        assertThat(checked).hasSize(3 * 64);
        assertThat(b.dropped()).isZero();
    }

    @Test
    void correlationIdsAreUniqueAcrossThreads() {
        CallBuffer a = new CallBuffer(64, Thread.currentThread(), 0);
        CallBuffer b = new CallBuffer(64, Thread.currentThread(), 1);
        assertThat(a.correlationId(5)).isNotEqualTo(b.correlationId(5)).isNotEqualTo(a.correlationId(6));
    }

    @Test
    void aConcurrentWriterAndDrainerLoseNothingThatWasNotCountedAsDropped() throws Exception {
        int n = 200_000;
        CallBuffer[] holder = new CallBuffer[1];
        Thread writer = new Thread(() -> {
            holder[0] = new CallBuffer(1024, Thread.currentThread(), 0);
            synchronized (holder) {
                holder.notifyAll();
            }
            for (int i = 0; i < n; i++) {
                holder[0].put(i, i, i + 1, 0, 0, i, 0, 0, 0, 0, 0, 0, 0);
            }
        });
        synchronized (holder) {
            writer.start();
            while (holder[0] == null) {
                holder.wait();
            }
        }
        long[] seen = {0, -1};
        boolean[] ordered = {true};
        while (writer.isAlive() || !holder[0].isEmpty()) {
            holder[0].drain((buf, seq, r, o) -> {
                seen[0]++;
                ordered[0] &= r[o] > seen[1] && r[o + CallBuffer.ARG0] == r[o] && r[o + CallBuffer.END] == r[o] + 1;
                seen[1] = r[o];
            });
        }
        writer.join();
        holder[0].drain((buf, seq, r, o) -> seen[0]++);
        assertThat(ordered[0]).isTrue();
        assertThat(seen[0] + holder[0].dropped()).isEqualTo(n);
    }

    @Test
    void aDrainUpToATimeLeavesTheRecordsThatEndedAfterItForTheNext() {
        CallBuffer b = new CallBuffer(4096, Thread.currentThread(), 0);
        for (int i = 0; i < 3000; i++) {  // more than a batch before the limit
            b.put(i, 10L * i, 10L * i + 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        }
        List<Long> ids = new ArrayList<>();
        assertThat(b.drain((buf, seq, r, o) -> ids.add(r[o]), 10L * 2000 + 5)).isEqualTo(2001);
        assertThat(ids).last().isEqualTo(2000L);
        assertThat(b.isEmpty()).isFalse();
        assertThat(b.drain((buf, seq, r, o) -> ids.add(r[o]), Long.MAX_VALUE)).isEqualTo(999);
        assertThat(ids).hasSize(3000).last().isEqualTo(2999L);
    }
}
