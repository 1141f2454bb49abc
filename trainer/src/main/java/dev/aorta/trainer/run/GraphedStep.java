package dev.aorta.trainer.run;

import dev.aorta.gpu.cuda.CudaGraph;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.trainer.config.ConfigException;
import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.config.TrainingConfig.MixedPrecision;

/**
 * {@code compile.enabled}: a step's device work on one stream, issued eagerly the first time (the warm-up, which
 * loads the kernels and makes cuBLAS's workspaces, the 16-bit weight copies and the caching allocator's blocks, none
 * of which may happen during a capture), captured as one CUDA graph the second time and replayed from then on: one
 * launch per step instead of hundreds. What changes between steps must therefore be in device memory at fixed
 * addresses (the batches, the learning rate, the dropout offsets), written before each launch.
 */
final class GraphedStep implements AutoCloseable {
    private final Stream stream;
    private CudaGraph graph;
    private boolean warmedUp;

    GraphedStep(Stream stream) {
        this.stream = stream;
    }

    /**
     * Refuses what cannot be captured, naming the key: fp16, whose loss scaler decides on the host whether each
     * step is applied, and a data-parallel rank ({@code worldSize} > 1 or a launcher), whose step is not captured.
     */
    static void requireSupported(TrainerConfig cfg, boolean launched) {
        if (!cfg.compile().enabled()) {
            return;
        }
        if (launched) {
            throw new ConfigException("compile.enabled is true, but a data-parallel rank (aorta train under a launcher)"
                    + " does not capture its step as a CUDA graph: its collectives are watched from the host for NCCL"
                    + " errors and timeouts; set compile.enabled: false or train on one GPU without a launcher.");
        }
        if (cfg.training().mixedPrecision() == MixedPrecision.FP16) {
            throw new ConfigException("compile.enabled is true with training.mixed_precision fp16, expected bf16 or"
                    + " none, since fp16's loss scaler decides on the host whether each step is applied, which a"
                    + " replayed CUDA graph cannot.");
        }
    }

    /** Issues the step's work: {@code body} itself the first time, its graph after that. */
    void issue(Runnable body) {
        if (!warmedUp) {
            body.run();
            warmedUp = true;
            return;
        }
        if (graph == null) {
            stream.beginCapture();
            try {
                body.run();
            } catch (RuntimeException e) {
                try {
                    stream.endCapture().close();
                } catch (RuntimeException ended) {
                    e.addSuppressed(ended);
                }
                throw e;
            }
            graph = stream.endCapture();
        }
        graph.launch(stream);
    }

    /** Whether the step is captured (after the second {@link #issue}). */
    boolean captured() {
        return graph != null;
    }

    @Override
    public void close() {
        if (graph != null) {
            graph.close();
        }
    }
}
