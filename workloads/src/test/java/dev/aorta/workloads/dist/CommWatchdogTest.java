package dev.aorta.workloads.dist;

import dev.aorta.workloads.session.CommDType;
import dev.aorta.workloads.session.Communicator;
import dev.aorta.workloads.session.GpuBuffer;
import dev.aorta.workloads.session.GpuStream;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class CommWatchdogTest {

    /** Only what the watchdog uses: the async error and abort. */
    private static final class Watched implements Communicator {
        volatile String asyncError;
        volatile int aborts;

        public int rank() {
            return 1;
        }

        public int size() {
            return 2;
        }

        public void allReduce(GpuBuffer s, GpuBuffer r, long c, CommDType t, GpuStream st) {
        }

        public void allGather(GpuBuffer s, GpuBuffer r, long c, CommDType t, GpuStream st) {
        }

        public void reduceScatter(GpuBuffer s, GpuBuffer r, long c, CommDType t, GpuStream st) {
        }

        public void broadcast(GpuBuffer s, GpuBuffer r, long c, CommDType t, int root, GpuStream st) {
        }

        public void allToAll(GpuBuffer s, GpuBuffer r, long c, CommDType t, GpuStream st) {
        }

        public Communicator split(int color, int key) {
            return this;
        }

        public Optional<String> asyncError() {
            return Optional.ofNullable(asyncError);
        }

        public void abort() {
            aborts++;
        }

        public void close() {
        }
    }

    private static void waitFor(CommWatchdog w, Duration atMost) throws InterruptedException {
        long end = System.nanoTime() + atMost.toNanos();
        while (w.failure().isEmpty() && System.nanoTime() < end) {
            Thread.sleep(10);
        }
    }

    @Test
    void anAsynchronousErrorAbortsEveryCommunicatorWithItsMessage() throws Exception {
        Watched group = new Watched();
        Watched world = new Watched();
        try (CommWatchdog w = new CommWatchdog(List.of(group, world), Duration.ofSeconds(60), Duration.ofMillis(10))) {
            w.arm();
            group.asyncError = "remote process exited or there was a network error (ncclResult_t 6)";
            waitFor(w, Duration.ofSeconds(5));
            assertThat(w.failure()).hasValueSatisfying(m -> assertThat(m)
                    .startsWith("NCCL reported an asynchronous error on rank 1 of its group of 2: remote process exited"));
            assertThat(group.aborts).isEqualTo(1);
            assertThat(world.aborts).isEqualTo(1);
        }
    }

    @Test
    void noProgressForTheTimeoutAbortsInsteadOfHanging() throws Exception {
        Watched c = new Watched();
        try (CommWatchdog w = new CommWatchdog(List.of(c), Duration.ofMillis(300), Duration.ofMillis(10))) {
            w.arm();
            waitFor(w, Duration.ofSeconds(5));
            assertThat(w.failure()).hasValueSatisfying(m -> assertThat(m).startsWith("no progress for"));
            assertThat(c.aborts).isEqualTo(1);
        }
    }

    @Test
    void progressKeepsItQuietAndDisarmedItIgnoresErrors() throws Exception {
        Watched c = new Watched();
        try (CommWatchdog w = new CommWatchdog(List.of(c), Duration.ofMillis(300), Duration.ofMillis(10))) {
            w.arm();
            for (int i = 0; i < 10; i++) {
                Thread.sleep(100);
                w.progress();
            }
            assertThat(w.failure()).isEmpty();
            w.disarm();
            c.asyncError = "late";
            Thread.sleep(400);
            assertThat(w.failure()).isEmpty();
            assertThat(c.aborts).isZero();
        }
    }
}
