package dev.aorta.gpu.cuda;

/**
 * CUDA stream priorities: {@code greatest} is the most urgent and numerically the lowest
 * (e.g. least 0, greatest -5 on an H100).
 */
public record PriorityRange(int least, int greatest) {
}
