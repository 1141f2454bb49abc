package dev.aorta.trainer.plan;

import java.util.List;

/**
 * One trainable tensor: its PyTorch state_dict name, its shape, and the block whose backward completes its
 * gradient.
 */
public record ParameterSpec(String name, List<Integer> shape, Block block) {
    public ParameterSpec {
        shape = List.copyOf(shape);
    }

    public long numel() {
        long n = 1;
        for (int d : shape) {
            n *= d;
        }
        return n;
    }
}
