package dev.aorta.trainer.plan;

import java.util.List;

/**
 * DDP: gradients all-reduced together, filled in reverse registration order (the order backward produces them)
 * up to {@code distributed.bucket_cap_mb}; a parameter larger than the cap gets a bucket of its own. The bucket's
 * all-reduce can start once {@code readyAfter}'s backward has run.
 */
public record GradientBucket(int index, List<ParameterSpec> params, Block readyAfter) {
    public GradientBucket {
        params = List.copyOf(params);
    }

    public long bytes() {
        return params.stream().mapToLong(ParameterSpec::numel).sum() * Float.BYTES;
    }
}
