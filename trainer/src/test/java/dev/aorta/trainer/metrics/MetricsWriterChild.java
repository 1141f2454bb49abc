package dev.aorta.trainer.metrics;

import java.nio.file.Path;

/** Writes metrics lines until killed: the child process of the kill test. */
public final class MetricsWriterChild {
    private MetricsWriterChild() {
    }

    public static void main(String[] args) throws Exception {
        try (MetricsJsonlWriter w = MetricsJsonlWriter.open(Path.of(args[0]), 0)) {
            for (int step = 0; ; step++) {
                w.write(MetricsJsonlWriterTest.step(0, step, 400));
            }
        }
    }
}
