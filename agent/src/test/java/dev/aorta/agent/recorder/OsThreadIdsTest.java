package dev.aorta.agent.recorder;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnJre;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.condition.OS;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class OsThreadIdsTest {
    /**
     * A thread notes its ids (as its ring is made): its Linux thread id is the one the kernel names it by
     * ({@code /proc/thread-self} links to {@code PID/task/TID}), and its pthread id is a 32-bit value of its own.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    @EnabledOnJre({JRE.JAVA_22, JRE.JAVA_23, JRE.JAVA_24, JRE.JAVA_25, JRE.OTHER})
    void aRecordingThreadsIdsAreNotedAsTheKernelAndPthreadsKnowThem() throws Exception {
        OsThreadIds.enable();   // as the agent does once CUPTI runs
        AtomicLong kernelTid = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] threads = new Thread[2];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new Thread(() -> {
                try {
                    OsThreadIds.noteCurrentThread();   // as the thread's ring is made
                    kernelTid.compareAndSet(0, Long.parseLong(
                            Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString()));
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
        }
        threads[0].start();
        threads[0].join();
        threads[1].start();
        threads[1].join();
        assertThat(failure.get()).isNull();

        long first = threads[0].getId();
        assertThat(OsThreadIds.gettid(first)).isEqualTo(kernelTid.get());
        assertThat(OsThreadIds.pthread(first)).isBetween(1L, 0xFFFF_FFFFL);
        assertThat(OsThreadIds.pthread(threads[1].getId())).isNotEqualTo(OsThreadIds.UNKNOWN);
    }

    @Test
    void aThreadThatNeverRecordedIsUnknown() {
        assertThat(OsThreadIds.pthread(Long.MAX_VALUE)).isEqualTo(OsThreadIds.UNKNOWN);
        assertThat(OsThreadIds.gettid(Long.MAX_VALUE)).isEqualTo(OsThreadIds.UNKNOWN);
    }
}
