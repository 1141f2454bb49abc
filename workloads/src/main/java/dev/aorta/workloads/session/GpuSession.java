package dev.aorta.workloads.session;

import dev.aorta.core.event.DeviceActivity;
import dev.aorta.gpu.cuda.DeviceInfo;
import dev.aorta.gpu.cuda.MemoryStats;

import java.util.List;

/**
 * Everything the harness and the workloads need from a GPU, and nothing more, so that the adapter
 * over the {@code gpu} module ({@code CudaGpuSession}) stays a thin file and a test double can stand
 * in for it. One session = one device, its primary context, and the resources created through it;
 * {@link #close()} frees whatever is still alive.
 *
 * <p>Not thread-safe: the harness drives a session from one thread.
 */
public interface GpuSession extends AutoCloseable {

    DeviceInfo deviceInfo();

    /**
     * Creates a non-blocking stream (does not synchronize with the legacy default stream).
     *
     * @param priority a CUDA stream priority inside {@link DeviceInfo#priorityRange()}; lower is more urgent
     */
    GpuStream createStream(int priority);

    /**
     * Creates an event for ordering streams, with timing disabled (as torch.cuda.Event's default): recording it and
     * waiting on it cost the device less than a timing event does, and it cannot be measured.
     */
    GpuEvent createEvent();

    /** Creates an event with timing enabled, for {@link GpuEvent#elapsedMsSince}. */
    GpuEvent createTimingEvent();

    /** Allocates device memory (contents undefined). */
    GpuBuffer allocate(long bytes);

    /** Allocates page-locked host memory (contents undefined), the source and target of asynchronous copies. */
    HostBuffer allocatePinned(long bytes);

    /** Enqueues a copy of {@code bytes} from pinned host memory to the device on {@code stream}; does not wait. */
    void copyHostToDevice(GpuBuffer dst, HostBuffer src, long bytes, GpuStream stream);

    /** Enqueues a copy of {@code bytes} from the device to pinned host memory on {@code stream}; does not wait. */
    void copyDeviceToHost(HostBuffer dst, GpuBuffer src, long bytes, GpuStream stream);

    /** Enqueues a copy of {@code bytes} between two device buffers on {@code stream}; does not wait. */
    void copyDeviceToDevice(GpuBuffer dst, GpuBuffer src, long bytes, GpuStream stream);

    /**
     * Compiles CUDA C source for this device's architecture (cached by the adapter) and loads it.
     *
     * @param name a label for errors and caches, e.g. the resource file name
     */
    KernelModule loadModule(String name, String cudaSource);

    /**
     * Prepares one cuBLAS GEMM {@code C = A·B} (column-major, no transposes, alpha 1, beta 0) on a
     * stream; strided-batched when {@code spec.batch() > 1} with the strides of {@link GemmSpec}.
     * The buffers must hold {@link GemmSpec#bytesA()}, {@link GemmSpec#bytesB()}, {@link GemmSpec#bytesC()}.
     */
    PreparedGemm prepareGemm(GemmSpec spec, GpuBuffer a, GpuBuffer b, GpuBuffer c, GpuStream stream);

    /**
     * Why per-kernel device activity cannot be captured (CUPTI missing, insufficient permissions...),
     * or {@code null} when {@link #startActivityCapture()} works.
     */
    String activityCaptureUnavailableReason();

    /**
     * Starts recording device activity (kernels, memcpy, memset) with CUPTI, latency timestamps
     * ({@code queued}/{@code submitted}) enabled when the driver supports them.
     */
    void startActivityCapture();

    /**
     * Stops recording, flushes and returns what ran since {@link #startActivityCapture()}: each record's
     * {@link DeviceActivity#stream()} equals {@link GpuStream#activityStreamId()} of the stream it ran on,
     * {@link DeviceActivity#correlationId()} increases in launch order, times in the {@code cupti} clock.
     * {@code queuedNs} is CUPTI's {@code queued} when the driver gives latency timestamps, else the end
     * of the launch API call (CUPTI driver/runtime record of the same correlation id), else UNKNOWN:
     * dispatch latency and the convoy measurement need one of the first two.
     */
    List<DeviceActivity> stopActivityCapture();

    /**
     * Delivers and forgets what the running capture has recorded so far, and keeps capturing: the harness
     * warms up under capture (CUPTI makes the first launch of each kernel after it starts slow, by
     * milliseconds) and keeps only the measured iterations. Call after the device has finished that work.
     */
    void discardCapturedActivity();

    /**
     * Copies the first {@code count} fp32 values of a buffer to the host, after the device has finished
     * all work of this session (for the workloads' correctness checks, never in a measured loop).
     */
    float[] readFloats(GpuBuffer buffer, int count);

    /**
     * Copies the first {@code count} int32 values of a buffer to the host, after the device has finished
     * all work of this session (for correctness checks, never in a measured loop).
     */
    int[] readInts(GpuBuffer buffer, int count);

    /**
     * Copies {@code count} 32-bit words from {@code byteOffset} (a multiple of 4) of a buffer to the host, after the
     * device has finished all work of this session: a few entries of a large output, for correctness checks.
     */
    int[] readInts(GpuBuffer buffer, long byteOffset, int count);

    /** Writes 32-bit words into pinned host memory from {@code byteOffset} (setup: no device work may be using it). */
    void writeHost(HostBuffer buffer, long byteOffset, int[] words);

    /** Reads 32-bit words of pinned host memory, after the device has finished all work of this session. */
    int[] readHost(HostBuffer buffer, long byteOffset, int count);

    /** Copies {@code values} into the start of a buffer and waits for the copy (setup, not a measured loop). */
    void writeFloats(GpuBuffer buffer, float[] values);

    /**
     * Waits until {@code stream} has reached this point and returns the buffer's first int32: one device→host
     * copy in stream order, then a stream synchronization, the way PyTorch's {@code .item()} or boolean-mask
     * indexing reads a size back. Cheap enough for a measured loop that needs the value on the host.
     */
    int readIntOnStream(GpuBuffer buffer, GpuStream stream);

    /**
     * A new id for a communicator: rank 0 makes it and hands it to the other ranks (see
     * {@link #openCommunicator}); needs no device work.
     */
    CommunicatorId newCommunicatorId();

    /**
     * Joins communicator {@code id} as {@code rank} of {@code size} on this session's device; blocks until
     * every rank has joined. The session closes it when it closes, if the caller has not.
     */
    Communicator openCommunicator(CommunicatorId id, int size, int rank);

    /**
     * The GPU's clocks, power, temperature, utilisation and PCIe link now (NVML), or why they cannot be read; never
     * touches the CUDA context, so it may be called around measured work.
     */
    GpuTelemetry telemetry();

    /**
     * The CUDA device behind this session, for workloads built from the model module's ops (which run on the gpu
     * module's devices and streams); a session without one (the tests' simulated device) throws
     * {@link UnsupportedOperationException} saying so.
     */
    dev.aorta.gpu.cuda.CudaDevice cudaDevice();

    /** The gpu module's stream behind one of this session's streams (see {@link #cudaDevice()}). */
    dev.aorta.gpu.cuda.Stream cudaStream(GpuStream stream);

    /**
     * Host API calls that have enqueued device work through this session since it opened: kernel launches, GEMMs,
     * copies, memsets, graph launches (one each, however many kernels the graph holds) and collectives, those of the
     * model ops run on {@link #cudaDevice()} included; event records and stream waits are not work and do not count.
     * The harness reads it around each iteration: the launches per iteration that host enqueue time is divided by.
     */
    long enqueuedWork();

    /** The runtime's own accounting of device memory. */
    MemoryStats memoryStats();

    /** Blocks until the device has finished all work of this session. */
    void synchronize();

    @Override
    void close();
}
