package dev.aorta.trainer.config;

import java.util.Map;

/**
 * {@code compile}: ours, {@code enabled} captures each training step as a CUDA graph after the first step and
 * replays it, which removes the host's launch cost from the step. {@code backend}, {@code mode},
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
