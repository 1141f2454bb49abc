package dev.aorta.trainer.run;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackgroundReportingTest {
    private static BackgroundReporting.EndedStep step(int s) {
        return new BackgroundReporting.EndedStep(s, 0.5, 1, 1e-3, true, s, s + 1, List.of());
    }

    @Test
    void stepsAreReportedInOrderOnAnotherThreadWhileTheIssuingThreadGoesOn() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> reported = Collections.synchronizedList(new ArrayList<>());
        List<String> threads = Collections.synchronizedList(new ArrayList<>());
        BackgroundReporting reporting = new BackgroundReporting(e -> {
            try {
                release.await(); // a slow metrics line: the issuing thread must not wait for it
            } catch (InterruptedException ie) {
                throw new IOException(ie);
            }
            reported.add(e.step());
            threads.add(Thread.currentThread().getName());
        });
        for (int s = 0; s < 50; s++) {
            reporting.submit(step(s));
        }
        assertThat(reported).isEmpty(); // all 50 submitted while the first line is still being written
        release.countDown();
        reporting.finish();

        List<Integer> expected = new ArrayList<>();
        for (int s = 0; s < 50; s++) {
            expected.add(s);
        }
        assertThat(reported).containsExactlyElementsOf(expected);
        assertThat(threads).allMatch(t -> t.equals("aorta-step-reporter"));
    }

    @Test
    void aFailureToWriteALineReachesTheIssuingThread() {
        BackgroundReporting reporting = new BackgroundReporting(e -> {
            throw new IOException("disk full: rank_00_metrics.jsonl");
        });
        reporting.submit(step(0));

        assertThatThrownBy(reporting::finish).isInstanceOf(IOException.class).hasMessageContaining("disk full");
    }

    @Test
    void afterAFailedLineTheNextSubmitFailsToo() throws Exception {
        CountDownLatch failed = new CountDownLatch(1);
        BackgroundReporting reporting = new BackgroundReporting(e -> {
            failed.countDown();
            throw new IllegalArgumentException("step 0 has no device activity records");
        });
        reporting.submit(step(0));
        failed.await();
        Thread.sleep(50);

        assertThatThrownBy(() -> reporting.submit(step(1))).hasMessageContaining("no device activity records");
    }
}
