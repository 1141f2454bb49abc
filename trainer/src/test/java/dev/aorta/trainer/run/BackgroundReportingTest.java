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
        return new BackgroundReporting.EndedStep(s, 0.5, 1, 1e-3, true, s, s + 1);
    }

    private static void submit(BackgroundReporting reporting, int s) {
        reporting.ended(step(s));
        reporting.recordsCame(List.of(List.of()));
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
            reporting.ended(step(s));
            if (s % 10 == 9) {
                reporting.recordsCame(java.util.Collections.nCopies(10, List.of()));
            }
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
    void aStepIsReportedOnlyOnceItsRecordsCame() throws Exception {
        List<Integer> reported = Collections.synchronizedList(new ArrayList<>());
        BackgroundReporting reporting = new BackgroundReporting(e -> reported.add(e.records().size()));
        reporting.ended(step(0));
        reporting.ended(step(1));
        reporting.recordsCame(List.of(List.of()));
        Thread.sleep(50);
        assertThat(reported).hasSize(1);
        assertThatThrownBy(() -> reporting.recordsCame(List.of(List.of(), List.of())))
                .hasMessageContaining("records of 2 steps came");
        reporting.finish();
    }

    @Test
    void aFailureToWriteALineReachesTheIssuingThread() {
        BackgroundReporting reporting = new BackgroundReporting(e -> {
            throw new IOException("disk full: rank_00_metrics.jsonl");
        });
        submit(reporting, 0);

        assertThatThrownBy(reporting::finish).isInstanceOf(IOException.class).hasMessageContaining("disk full");
    }

    @Test
    void afterAFailedLineTheNextSubmitFailsToo() throws Exception {
        CountDownLatch failed = new CountDownLatch(1);
        BackgroundReporting reporting = new BackgroundReporting(e -> {
            failed.countDown();
            throw new IllegalArgumentException("step 0 has no device activity records");
        });
        submit(reporting, 0);
        failed.await();
        Thread.sleep(50);

        assertThatThrownBy(() -> submit(reporting, 1)).hasMessageContaining("no device activity records");
    }
}
