package dev.aorta.trainer.config;

/**
 * {@code distributed.stream_priorities} (ours): the CUDA priority of each of the four streams; lower is more
 * urgent, 0 is the default. The device's range (cudaDeviceGetStreamPriorityRange, -5..0 on H100) is checked when
 * the streams are created, since it is the device's to say.
 */
public record StreamPriorities(int compute, int allreduce, int reducescatter, int aux) {
    static StreamPriorities defaults() {
        return new StreamPriorities(0, 0, 0, 0);
    }
}
