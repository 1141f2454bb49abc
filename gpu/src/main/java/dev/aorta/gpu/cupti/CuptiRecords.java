package dev.aorta.gpu.cupti;

/**
 * Receives what {@link CuptiTracer} decodes from CUPTI's buffers, one call per record, on CUPTI's thread.
 * Timestamps are on CUPTI's clock; {@code stream} is the CUstream address when the stream was registered, else
 * CUPTI's stream id; {@code correlationId} joins a driver call to the device work it started; a kernel's
 * {@code queuedNs}/{@code submittedNs} are {@code DeviceActivity.UNKNOWN} where CUPTI gave none.
 *
 * <p>Plain values, not {@code dev.aorta.core} records, because the agent carries its own relocated copy of core:
 * the application's core records would be foreign classes there, to be copied field by field. With plain values
 * the agent builds its own records, compiled against this interface.
 */
public interface CuptiRecords {
    void kernel(String name, int device, long stream, long startNs, long endNs, long correlationId, long queuedNs,
                long submittedNs, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ);

    void memcpy(String name, int device, long stream, long startNs, long endNs, long correlationId, long bytes);

    void memset(String name, int device, long stream, long startNs, long endNs, long correlationId, long bytes);

    /** A driver API call; only when the tracer was started with driver calls. */
    void driverCall(String name, long thread, long startNs, long endNs, long correlationId, int result);
}
