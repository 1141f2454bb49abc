package dev.aorta.trainer.config;

import java.util.Map;

/**
 * {@code compile}: ours, {@code enabled} runs the first training step eagerly, captures the second as a CUDA
 * graph and replays it from then on, which removes the host's launch cost from the step (one GPU; see
 * {@code dev.aorta.trainer.run.GraphedStep}). {@code backend}, {@code mode},
 * {@code fullgraph}, {@code dynamic} and {@code options} are torch.compile's settings in AORTA; they are accepted
 * so that its configurations load and change nothing here.
 */
public record CompileConfig(boolean enabled, String backend, String mode, boolean fullgraph, boolean dynamic,
                            Map<String, Object> options) {
    public CompileConfig {
        options = options == null ? Map.of() : Map.copyOf(options);
    }

    static CompileConfig defaults() {
        return new CompileConfig(false, "inductor", "max-autotune", false, false, Map.of());
    }
}
