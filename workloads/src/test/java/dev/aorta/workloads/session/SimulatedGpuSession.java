package dev.aorta.workloads.session;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.gpu.cuda.DeviceInfo;
import dev.aorta.gpu.cuda.MemoryStats;
import dev.aorta.workloads.spi.RandomValues;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test double of {@link GpuSession}: a deterministic model of a device on a virtual clock.
 * The host pays {@link #launchCostNs} per launch and {@link #eventCostNs} per event record; a kernel
 * starts {@link #dispatchNs} after it was queued at the earliest, after its stream's previous work,
 * and, with {@link #serialEngine}, only when the single engine is free. Kernel sources are parsed so
 * that a launch of a missing function or with the wrong number of arguments fails like it would on a GPU;
 * GEMM operands must be large enough. Counts what tests need to see (host waits, live resources).
 */
public final class SimulatedGpuSession implements GpuSession {
    private static final Pattern KERNEL = Pattern.compile("extern \"C\" __global__ void (\\w+)\\(([^)]*)\\)");

    public long launchCostNs = 3_000;
    public long eventCostNs = 1_500;
    public long dispatchNs = 1_000;
    public long smallKernelNs = 2_000;
    public double gemmFlopsPerNs = 50_000;  // 50 TFLOP/s
    public boolean serialEngine = true;
    public boolean emitQueued = true;
    /** What CUPTI's records cost while a capture runs: host time per launch, and device time before each kernel. */
    public long tracingHostNsPerLaunch = 0;
    public long tracingDeviceGapNs = 0;
    public String captureUnavailable;
    /** A kernel name the simulated device computes wrongly (x + 1), to see correctness checks fail. */
    public String miscomputed;

    /** Device bytes per ns of a simulated collective (200 GB/s). */
    public double commBytesPerNs = 200;
    /** Reported by every communicator of this session as its asynchronous error (a peer died...). */
    public volatile String commAsyncError;
    /** Collectives never finish: the next device wait blocks until a communicator is aborted, then fails. */
    public volatile boolean collectivesHang;
    public volatile int communicatorAborts;
    public final List<String> collectivesIssued = new ArrayList<>();

    public int hostWaits;
    public int launches;
    /** What {@link #enqueuedWork} reports: launches, GEMMs, copies and collectives, as the CUDA session counts them. */
    private long enqueued;
    public int liveStreams;
    public int liveEvents;
    public final List<Integer> streamPriorities = new ArrayList<>();

    private long hostNs;
    private long engineFreeNs;
    private long correlation;
    private boolean capturing;
    /** Records the harness threw away while capturing (its warmup). */
    public int discardedActivities;
    private final List<DeviceActivity> captured = new ArrayList<>();
    private final List<SimStream> streams = new ArrayList<>();
    private long allocated;
    private long allocations;
    private long peakAllocated;
    private final DeviceInfo info = new DeviceInfo(0, "Simulated H100", 132, 80L << 30, 9, 0, 13000,
            50L << 20, 3, 0, -5, "0000:00:00.0");

    @Override
    public long enqueuedWork() {
        return enqueued;
    }

    @Override
    public DeviceInfo deviceInfo() {
        return info;
    }

    private final class SimStream implements GpuStream {
        final int priority;
        final long id;
        long tailNs;
        boolean closed;

        SimStream(int priority, long id) {
            this.priority = priority;
            this.id = id;
        }

        @Override
        public int priority() {
            return priority;
        }

        @Override
        public long activityStreamId() {
            return id;
        }

        @Override
        public void waitEvent(GpuEvent event) {
            SimEvent e = (SimEvent) event;
            if (e.timeNs < 0) {
                throw new IllegalStateException("waiting on an event that was never recorded");
            }
            tailNs = Math.max(tailNs, e.timeNs);
        }

        @Override
        public void synchronize() {
            hostWaits++;
            hostNs = Math.max(hostNs, tailNs);
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                liveStreams--;
            }
        }
    }

    private final class SimEvent implements GpuEvent {
        final boolean timing;
        long timeNs = -1;
        boolean closed;

        SimEvent(boolean timing) {
            this.timing = timing;
        }

        @Override
        public void record(GpuStream stream) {
            SimStream s = (SimStream) stream;
            hostNs += eventCostNs;
            timeNs = Math.max(s.tailNs, hostNs);
            s.tailNs = timeNs;
        }

        @Override
        public void synchronize() {
            awaitHungCollectives();
            hostWaits++;
            hostNs = Math.max(hostNs, timeNs);
        }

        @Override
        public float elapsedMsSince(GpuEvent start) {
            SimEvent s = (SimEvent) start;
            if (!timing || !s.timing) {
                throw new IllegalStateException("elapsed time needs two timing events");
            }
            if (timeNs < 0 || s.timeNs < 0) {
                throw new IllegalStateException("elapsed time of an event that was never recorded");
            }
            if (hostNs < timeNs || hostNs < s.timeNs) {
                throw new IllegalStateException("elapsed time of an event the host has not waited for");
            }
            return (float) ((timeNs - s.timeNs) / 1e6);
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                liveEvents--;
            }
        }
    }

    /**
     * Buffers up to this size hold real data (their 32-bit words, two 16-bit elements in each, little-endian as the
     * device's) that the elementwise and fill kernels compute, and GEMMs when their output is read.
     */
    private static final long COMPUTED_BYTES = 1 << 22;

    private final class SimBuffer implements GpuBuffer {
        final long address;
        final long bytes;
        final float[] data;
        boolean freed;
        /** The last GEMM that wrote this buffer, computed when the buffer is read (GEMMs are slow on the host). */
        Runnable pendingGemm;
        /** A buffer too large to hold data: what fill.cu or a GEMM wrote, to compute the words read back. */
        DType virtualType;
        int fillSeed;
        GemmOutput gemmOutput;

        SimBuffer(long address, long bytes) {
            this.address = address;
            this.bytes = bytes;
            this.data = bytes <= COMPUTED_BYTES ? new float[(int) (bytes / 4)] : null;
        }

        @Override
        public long address() {
            return address;
        }

        @Override
        public long bytes() {
            return bytes;
        }

        @Override
        public void close() {
            if (!freed) {
                freed = true;
                allocated -= bytes;
            }
        }
    }

    @Override
    public GpuStream createStream(int priority) {
        if (priority > info.priorityRange().least() || priority < info.priorityRange().greatest()) {
            throw new IllegalArgumentException("priority " + priority + " outside " + info.priorityRange());
        }
        SimStream s = new SimStream(priority, 1000 + streams.size());
        streams.add(s);
        streamPriorities.add(priority);
        liveStreams++;
        return s;
    }

    @Override
    public GpuEvent createEvent() {
        liveEvents++;
        return new SimEvent(false);
    }

    @Override
    public GpuEvent createTimingEvent() {
        liveEvents++;
        return new SimEvent(true);
    }

    private long nextAddress = 0x7000_0000_0000L;

    @Override
    public GpuBuffer allocate(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("allocation of " + bytes + " bytes");
        }
        allocated += bytes;
        allocations++;
        peakAllocated = Math.max(peakAllocated, allocated);
        SimBuffer b = new SimBuffer(nextAddress, bytes);
        nextAddress += (bytes + 255) / 256 * 256;
        return b;
    }

    @Override
    public KernelModule loadModule(String name, String cudaSource) {
        Map<String, Integer> arity = new HashMap<>();
        Matcher m = KERNEL.matcher(cudaSource);
        while (m.find()) {
            arity.put(m.group(1), m.group(2).isBlank() ? 0 : m.group(2).split(",").length);
        }
        if (arity.isEmpty()) {
            throw new IllegalArgumentException(name + " has no extern \"C\" __global__ kernels");
        }
        return (function, grid, block, sharedBytes, stream, args) -> {
            Integer n = arity.get(function);
            if (n == null) {
                throw new IllegalArgumentException(name + " has no kernel " + function + "; it has " + arity.keySet());
            }
            if (n != args.length) {
                throw new IllegalArgumentException(function + " takes " + n + " arguments, got " + args.length);
            }
            for (KernelArg a : args) {
                if (a instanceof KernelArg.Pointer p && ((SimBuffer) p.buffer()).freed) {
                    throw new IllegalStateException(function + " gets a freed buffer");
                }
            }
            long duration = function.equals("simulated_collective_copy")
                    ? Math.max(1, Math.round(((KernelArg.Int64) args[2]).value() * 16 / commBytesPerNs))
                    : function.startsWith("fill_") ? 1_000 + grid.volume() * 10 : smallKernelNs;
            KernelArg[] current = args.clone();
            return new PreparedLaunch() {
                @Override
                public void launch() {
                    compute(function, current);
                    enqueue(function, (SimStream) stream, duration, grid, block);
                }

                @Override
                public void setInt(int index, int value) {
                    if (index < 0 || index >= current.length || !(current[index] instanceof KernelArg.Int32)) {
                        throw new IllegalArgumentException("argument " + index + " of " + function + " is not an int32");
                    }
                    current[index] = KernelArg.i32(value);
                }
            };
        };
    }

    @Override
    public PreparedGemm prepareGemm(GemmSpec spec, GpuBuffer a, GpuBuffer b, GpuBuffer c, GpuStream stream) {
        if (a.bytes() < spec.bytesA() || b.bytes() < spec.bytesB() || c.bytes() < spec.bytesC()) {
            throw new IllegalArgumentException("GEMM " + spec.describe() + " operands too small");
        }
        long duration = Math.round(spec.flops() / gemmFlopsPerNs);
        String name = "sim_gemm_" + spec.dtype().label();
        SimBuffer out = (SimBuffer) c;
        return () -> {
            enqueue(name, (SimStream) stream, duration, new Dim3(132, 1, 1), new Dim3(256, 1, 1));
            boolean wrong = name.equals(miscomputed);
            if (out.data != null) {
                out.pendingGemm = () -> gemm(spec, (SimBuffer) a, (SimBuffer) b, out, wrong);
            } else {
                out.virtualType = spec.dtype();
                out.gemmOutput = new GemmOutput(spec, (SimBuffer) a, (SimBuffer) b, wrong);
            }
        };
    }

    /** A large GEMM's output, whose entries are computed only when read. */
    private record GemmOutput(GemmSpec spec, SimBuffer a, SimBuffer b, boolean wrong) {
        float entry(long index) {
            int i = (int) (index % spec.m());
            int j = (int) (index / spec.m());
            float sum = 0;
            for (int l = 0; l < spec.k(); l++) {
                long ai = wrong ? l + (long) i * spec.k() : i + (long) l * spec.m();
                sum += element(a, spec.dtype(), ai) * element(b, spec.dtype(), l + (long) j * spec.k());
            }
            return sum;
        }
    }

    /** Column-major C = A·B in fp32, stored in the spec's type (the miscomputed one transposes A). */
    private static void gemm(GemmSpec spec, SimBuffer a, SimBuffer b, SimBuffer c, boolean wrong) {
        for (int j = 0; j < spec.n(); j++) {
            for (int i = 0; i < spec.m(); i++) {
                float sum = 0;
                for (int l = 0; l < spec.k(); l++) {
                    long ai = wrong ? l + (long) i * spec.k() : i + (long) l * spec.m();
                    sum += element(a, spec.dtype(), ai) * element(b, spec.dtype(), l + (long) j * spec.k());
                }
                store(c, spec.dtype(), i + (long) j * spec.m(), sum);
            }
        }
    }

    private static float element(SimBuffer buffer, DType dtype, long index) {
        if (buffer.data == null) {
            if (buffer.gemmOutput != null) {
                return rounded(dtype, buffer.gemmOutput.entry(index));
            }
            return buffer.virtualType == null ? 0 : rounded(dtype, RandomValues.uniform(index, buffer.fillSeed));
        }
        if (dtype.bytes() == 4) {
            return buffer.data[(int) index];
        }
        int half = (Float.floatToRawIntBits(buffer.data[(int) (index / 2)]) >>> (16 * (int) (index % 2))) & 0xFFFF;
        return dtype == DType.BF16 ? Float.intBitsToFloat(half << 16) : Float.float16ToFloat((short) half);
    }

    /** Stores {@code v} rounded to {@code dtype} as the device does (bf16 and fp16 to nearest even). */
    private static void store(SimBuffer buffer, DType dtype, long index, float v) {
        if (dtype.bytes() == 4) {
            buffer.data[(int) index] = v;
            return;
        }
        int half = halfBits(dtype, v);
        int w = (int) (index / 2);
        int shift = 16 * (int) (index % 2);
        int word = Float.floatToRawIntBits(buffer.data[w]) & ~(0xFFFF << shift) | half << shift;
        buffer.data[w] = Float.intBitsToFloat(word);
    }

    /** What kernels/fill.cu and kernels/elementwise.cu compute, on buffers small enough to hold data. */
    private void compute(String function, KernelArg[] args) {
        if (!(args[0] instanceof KernelArg.Pointer p)) {
            return;
        }
        if (((SimBuffer) p.buffer()).data == null) {
            if (function.startsWith("fill_uniform_")) {   // remembered, to compute the words read back
                SimBuffer b = (SimBuffer) p.buffer();
                b.virtualType = function.endsWith("f32") ? DType.FP32 : function.endsWith("bf16") ? DType.BF16 : DType.FP16;
                b.fillSeed = ((KernelArg.Int32) args[2]).value();
                b.gemmOutput = null;
            }
            return;
        }
        float[] x = ((SimBuffer) p.buffer()).data;
        float[] y = args.length > 1 && args[1] instanceof KernelArg.Pointer q ? ((SimBuffer) q.buffer()).data : null;
        int n = args[args.length - 1] instanceof KernelArg.Int32 i ? i.value() : 0;
        boolean wrong = function.equals(miscomputed);
        switch (function) {
            case "fill_uniform_f32", "fill_uniform_bf16", "fill_uniform_f16" -> {
                long count = ((KernelArg.Int64) args[1]).value();
                int seed = ((KernelArg.Int32) args[2]).value();
                DType dtype = function.endsWith("f32") ? DType.FP32 : function.endsWith("bf16") ? DType.BF16 : DType.FP16;
                for (int i = 0; i < count; i++) {
                    store((SimBuffer) p.buffer(), dtype, i, RandomValues.uniform(i, seed));
                }
            }
            case "fill_value_f32" -> Arrays.fill(x, 0, (int) ((KernelArg.Int64) args[1]).value(),
                    ((KernelArg.Float32) args[2]).value());
            case "simulated_collective_copy" -> {
                float[] src = ((SimBuffer) ((KernelArg.Pointer) args[1]).buffer()).data;
                int floats = (int) (((KernelArg.Int64) args[2]).value() * 4);
                System.arraycopy(src, 0, x, 0, Math.min(floats, Math.min(src.length, x.length)));
            }
            case "vec_add" -> apply(x, n, i -> x[i] + y[i], wrong);
            case "vec_mul" -> apply(x, n, i -> x[i] * y[i], wrong);
            case "vec_relu" -> apply(x, n, i -> x[i] > 0 ? x[i] : 0, wrong);
            case "vec_scale" -> {
                float a = ((KernelArg.Float32) args[1]).value();
                float b = ((KernelArg.Float32) args[2]).value();
                apply(x, n, i -> (float) Math.tanh(Math.fma(a, x[i], b)), wrong);
            }
            default -> { }
        }
    }

    private static int halfBits(DType dtype, float v) {
        if (dtype == DType.BF16) {
            int bits = Float.floatToRawIntBits(v);
            return (bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16;
        }
        return Float.floatToFloat16(v) & 0xFFFF;
    }

    private static float rounded(DType dtype, float v) {
        return switch (dtype) {
            case FP32, TF32 -> v;
            case BF16 -> Float.intBitsToFloat(halfBits(dtype, v) << 16);
            case FP16 -> Float.float16ToFloat((short) halfBits(dtype, v));
        };
    }

    private interface Elementwise {
        float at(int i);
    }

    private static void apply(float[] x, int n, Elementwise op, boolean wrong) {
        for (int i = 0; i < n; i++) {
            x[i] = wrong ? x[i] + 1 : op.at(i);
        }
    }

    @Override
    public float[] readFloats(GpuBuffer buffer, int count) {
        synchronize();
        SimBuffer b = (SimBuffer) buffer;
        if (b.pendingGemm != null) {
            b.pendingGemm.run();
            b.pendingGemm = null;
        }
        float[] data = b.data;
        if (data == null) {
            throw new UnsupportedOperationException("the simulated device keeps no data for buffers over "
                    + COMPUTED_BYTES + " bytes");
        }
        return java.util.Arrays.copyOf(data, count);
    }

    @Override
    public int[] readInts(GpuBuffer buffer, long byteOffset, int count) {
        SimBuffer b = (SimBuffer) buffer;
        if (b.data != null) {
            int[] all = readInts(buffer, (int) (byteOffset / 4) + count);
            return Arrays.copyOfRange(all, (int) (byteOffset / 4), all.length);
        }
        if (b.virtualType == null) {
            throw new UnsupportedOperationException("the simulated device keeps no data for buffers over "
                    + COMPUTED_BYTES + " bytes that no fill or GEMM wrote");
        }
        synchronize();
        int[] out = new int[count];
        DType t = b.virtualType;
        for (int w = 0; w < count; w++) {
            long word = byteOffset / 4 + w;
            out[w] = t.bytes() == 4 ? Float.floatToRawIntBits(element(b, t, word))
                    : halfBits(t, element(b, t, 2 * word)) | halfBits(t, element(b, t, 2 * word + 1)) << 16;
        }
        return out;
    }

    /** Int buffers hold their values as the fp32 bit patterns of their elements, like device memory would. */
    @Override
    public int[] readInts(GpuBuffer buffer, int count) {
        float[] values = readFloats(buffer, count);
        int[] out = new int[count];
        for (int i = 0; i < count; i++) {
            out[i] = Float.floatToRawIntBits(values[i]);
        }
        return out;
    }

    @Override
    public void writeFloats(GpuBuffer buffer, float[] values) {
        synchronize();
        float[] data = ((SimBuffer) buffer).data;
        if (data != null) {
            System.arraycopy(values, 0, data, 0, values.length);
        }
    }

    /**
     * What {@link #readIntOnStream} returns: the simulated device does not run every kernel, so a test says
     * what the device would have computed; by default the buffer's first element.
     */
    public java.util.function.ToIntFunction<GpuBuffer> intReadback =
            b -> ((SimBuffer) b).data == null ? 0 : Float.floatToRawIntBits(((SimBuffer) b).data[0]);
    public int streamReadbacks;

    @Override
    public int readIntOnStream(GpuBuffer buffer, GpuStream stream) {
        streamReadbacks++;
        enqueued++; // the CUDA session's device-to-host copy of the value
        stream.synchronize();
        return intReadback.applyAsInt(buffer);
    }

    private void enqueue(String name, SimStream stream, long durationNs, Dim3 grid, Dim3 block) {
        if (stream.closed) {
            throw new IllegalStateException("launch on a closed stream");
        }
        hostNs += launchCostNs + (capturing ? tracingHostNsPerLaunch : 0);
        launches++;
        enqueued++;
        long queued = hostNs;
        long start = Math.max(queued + dispatchNs, stream.tailNs + (capturing ? tracingDeviceGapNs : 0));
        if (serialEngine) {
            start = Math.max(start, engineFreeNs + (capturing ? tracingDeviceGapNs : 0));
        }
        long end = start + durationNs;
        stream.tailNs = end;
        if (serialEngine) {
            engineFreeNs = end;
        }
        if (capturing) {
            captured.add(new DeviceActivity(ActivityKind.KERNEL, name, 0, 0, stream.id, start, end, ++correlation,
                    emitQueued ? queued : DeviceActivity.UNKNOWN, emitQueued ? queued + 500 : DeviceActivity.UNKNOWN,
                    grid, block, 0, ClockDomain.CUPTI));
        } else {
            ++correlation;
        }
    }

    /** Host link (PCIe) and device-to-device copy rates, bytes per ns = GB/s. */
    public double linkBytesPerNs = 25;
    public double deviceCopyBytesPerNs = 1500;
    /** When each copy engine (by direction) is free: copies use copy engines, never the SMs of serialEngine. */
    private final Map<String, Long> copyEngineFreeNs = new HashMap<>();
    /** Host buffers not yet freed. */
    public int liveHostBuffers;

    private final class SimHostBuffer implements HostBuffer {
        final long bytes;
        /** Its words, up to {@link #COMPUTED_BYTES}, as a device buffer's. */
        final float[] data;
        boolean closed;

        SimHostBuffer(long bytes) {
            this.bytes = bytes;
            this.data = bytes <= COMPUTED_BYTES ? new float[(int) (bytes / 4)] : null;
        }

        @Override
        public long bytes() {
            return bytes;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                liveHostBuffers--;
            }
        }
    }

    @Override
    public HostBuffer allocatePinned(long bytes) {
        liveHostBuffers++;
        return new SimHostBuffer(bytes);
    }

    @Override
    public void copyHostToDevice(GpuBuffer dst, HostBuffer src, long bytes, GpuStream stream) {
        requireFits(bytes, dst.bytes(), src);
        copyWords("Memcpy HtoD", ((SimHostBuffer) src).data, (SimBuffer) dst, bytes);
        enqueueCopy("Memcpy HtoD", (SimStream) stream, bytes, linkBytesPerNs);
    }

    /** A copy into a device buffer: its data where both ends hold data, else its contents become unknown. */
    private void copyWords(String name, float[] from, SimBuffer to, long bytes) {
        if (to.data == null || from == null) {
            to.virtualType = null;
            to.gemmOutput = null;
        }
        copyWords(name, from, to.data, bytes);
    }

    /** A copy's data, where both ends hold data (the simulated device copies when the copy is enqueued). */
    private void copyWords(String name, float[] from, float[] to, long bytes) {
        if (from != null && to != null) {
            System.arraycopy(from, 0, to, 0, (int) (bytes / 4));
            if (name.equals(miscomputed)) {
                to[(int) (bytes / 4) - 1] += 1;
            }
        }
    }

    @Override
    public void writeHost(HostBuffer buffer, long byteOffset, int[] words) {
        float[] data = ((SimHostBuffer) buffer).data;
        for (int i = 0; data != null && i < words.length; i++) {
            data[(int) (byteOffset / 4) + i] = Float.intBitsToFloat(words[i]);
        }
    }

    @Override
    public int[] readHost(HostBuffer buffer, long byteOffset, int count) {
        synchronize();
        float[] data = ((SimHostBuffer) buffer).data;
        if (data == null) {
            throw new UnsupportedOperationException("the simulated host keeps no data for buffers over "
                    + COMPUTED_BYTES + " bytes");
        }
        int[] out = new int[count];
        for (int i = 0; i < count; i++) {
            out[i] = Float.floatToRawIntBits(data[(int) (byteOffset / 4) + i]);
        }
        return out;
    }

    @Override
    public void copyDeviceToHost(HostBuffer dst, GpuBuffer src, long bytes, GpuStream stream) {
        requireFits(bytes, src.bytes(), dst);
        copyWords("Memcpy DtoH", ((SimBuffer) src).data, ((SimHostBuffer) dst).data, bytes);
        enqueueCopy("Memcpy DtoH", (SimStream) stream, bytes, linkBytesPerNs);
    }

    @Override
    public void copyDeviceToDevice(GpuBuffer dst, GpuBuffer src, long bytes, GpuStream stream) {
        if (bytes > dst.bytes() || bytes > src.bytes()) {
            throw new IllegalArgumentException("copy of " + bytes + " bytes does not fit its buffers");
        }
        copyWords("Memcpy DtoD", ((SimBuffer) src).data, (SimBuffer) dst, bytes);
        enqueueCopy("Memcpy DtoD", (SimStream) stream, bytes, deviceCopyBytesPerNs);
    }

    private static void requireFits(long bytes, long deviceBytes, HostBuffer host) {
        if (((SimHostBuffer) host).closed) {
            throw new IllegalStateException("copy with a freed host buffer");
        }
        if (bytes > deviceBytes || bytes > host.bytes()) {
            throw new IllegalArgumentException("copy of " + bytes + " bytes does not fit its buffers");
        }
    }

    private void enqueueCopy(String name, SimStream stream, long bytes, double bytesPerNs) {
        hostNs += launchCostNs + (capturing ? tracingHostNsPerLaunch : 0);
        enqueued++;
        long queued = hostNs;
        long start = Math.max(Math.max(queued + dispatchNs, stream.tailNs), copyEngineFreeNs.getOrDefault(name, 0L));
        long end = start + Math.max(1, Math.round(bytes / bytesPerNs));
        stream.tailNs = end;
        copyEngineFreeNs.put(name, end);
        ++correlation;
        if (capturing) {
            captured.add(new DeviceActivity(ActivityKind.MEMCPY, name, 0, 0, stream.id, start, end, correlation,
                    DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, bytes, ClockDomain.CUPTI));
        }
    }

    @Override
    public String activityCaptureUnavailableReason() {
        return captureUnavailable;
    }

    @Override
    public void startActivityCapture() {
        if (captureUnavailable != null) {
            throw new IllegalStateException(captureUnavailable);
        }
        capturing = true;
        captured.clear();
    }

    @Override
    public void discardCapturedActivity() {
        if (!capturing) {
            throw new IllegalStateException("no activity capture was started");
        }
        discardedActivities += captured.size();
        captured.clear();
    }

    @Override
    public List<DeviceActivity> stopActivityCapture() {
        capturing = false;
        return List.copyOf(captured);
    }

    /** What telemetry() returns; tests set one with values to see them reach results. */
    public GpuTelemetry telemetry = GpuTelemetry.unavailable("simulated GPU session: no NVML");
    /** Readings returned one per call, in order, before falling back to {@link #telemetry}: a GPU that changes. */
    public final java.util.Deque<GpuTelemetry> nextTelemetry = new java.util.ArrayDeque<>();

    @Override
    public GpuTelemetry telemetry() {
        return nextTelemetry.isEmpty() ? telemetry : nextTelemetry.poll();
    }

    @Override
    public dev.aorta.gpu.cuda.CudaDevice cudaDevice() {
        throw new UnsupportedOperationException("the simulated GPU session has no CUDA device");
    }

    @Override
    public dev.aorta.gpu.cuda.Stream cudaStream(GpuStream stream) {
        throw new UnsupportedOperationException("the simulated GPU session has no CUDA streams");
    }

    @Override
    public MemoryStats memoryStats() {
        return new MemoryStats(allocated, peakAllocated, allocated, peakAllocated, allocations, 0);
    }

    @Override
    public void synchronize() {
        awaitHungCollectives();
        hostWaits++;
        for (SimStream s : streams) {
            hostNs = Math.max(hostNs, s.tailNs);
        }
    }

    private final CountDownLatch abortedWhileHung = new CountDownLatch(1);
    private volatile boolean hungCollectiveIssued;

    /** Like a device stuck in a collective whose peer is gone: only an abort releases the host, with an error. */
    private void awaitHungCollectives() {
        if (!hungCollectiveIssued) {
            return;
        }
        try {
            if (!abortedWhileHung.await(SimulatedFabric.TIMEOUT_S, TimeUnit.SECONDS)) {
                throw new IllegalStateException("simulated hang: nobody aborted the communicator");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("CUDA_ERROR_LAUNCH_FAILED (simulated: the collective's kernel was aborted)");
    }

    @Override
    public CommunicatorId newCommunicatorId() {
        byte[] id = new byte[16];
        ThreadLocalRandom.current().nextBytes(id);
        return new CommunicatorId(id);
    }

    @Override
    public Communicator openCommunicator(CommunicatorId id, int size, int rank) {
        if (rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank " + rank + " outside 0.." + (size - 1));
        }
        SimulatedFabric fabric = SimulatedFabric.join(id, size);
        fabric.exchange(rank, null);  // like ncclCommInitRank: returns once every rank has joined
        return new SimComm(fabric, rank);
    }

    /** A member of a {@link SimulatedFabric}: collectives computed on fp32 data, timed as one kernel each. */
    private final class SimComm implements Communicator {
        final SimulatedFabric fabric;
        final int rank;
        volatile boolean released;

        SimComm(SimulatedFabric fabric, int rank) {
            this.fabric = fabric;
            this.rank = rank;
        }

        @Override
        public int rank() {
            return rank;
        }

        @Override
        public int size() {
            return fabric.size;
        }

        private float[] data(GpuBuffer b, CommDType type) {
            return type == CommDType.FP32 ? ((SimBuffer) b).data : null;
        }

        /** Exchanges the send data, lets {@code result} fill recv from all ranks' data, and times the collective. */
        private void collective(String name, GpuBuffer send, GpuBuffer recv, long bytes, CommDType type,
                                GpuStream stream, java.util.function.BiConsumer<Object[], float[]> result) {
            if (released) {
                throw new IllegalStateException("the simulated communicator was aborted or closed");
            }
            if (stream == null) { // as the real session: a collective needs a stream of this session
                throw new IllegalArgumentException("stream null does not belong to this session");
            }
            collectivesIssued.add(name);
            Object[] all = fabric.exchange(rank, SimulatedFabric.copy(data(send, type)));
            float[] out = data(recv, type);
            if (out != null && Arrays.stream(all).allMatch(a -> a != null)) {
                result.accept(all, out);
                if (name.equals(miscomputed)) {
                    out[0] += 1;
                }
            }
            if (collectivesHang) {
                hungCollectiveIssued = true;
            }
            enqueue("ncclDevKernel_" + name + "_" + type.label() + " (simulated)", (SimStream) stream,
                    Math.max(1, Math.round(bytes / commBytesPerNs)), new Dim3(32, 1, 1), new Dim3(512, 1, 1));
        }

        @Override
        public void allReduce(GpuBuffer send, GpuBuffer recv, long count, CommDType type, GpuStream stream) {
            collective("AllReduce_Sum", send, recv, count * type.bytes(), type, stream,
                    (all, out) -> System.arraycopy(SimulatedFabric.sum(all, 0, (int) count), 0, out, 0, (int) count));
        }

        @Override
        public void allGather(GpuBuffer send, GpuBuffer recv, long sendCount, CommDType type, GpuStream stream) {
            collective("AllGather", send, recv, sendCount * type.bytes() * size(), type, stream, (all, out) -> {
                for (int r = 0; r < all.length; r++) {
                    System.arraycopy((float[]) all[r], 0, out, (int) (r * sendCount), (int) sendCount);
                }
            });
        }

        @Override
        public void reduceScatter(GpuBuffer send, GpuBuffer recv, long recvCount, CommDType type,
                                  GpuStream stream) {
            collective("ReduceScatter_Sum", send, recv, recvCount * type.bytes() * size(), type, stream,
                    (all, out) -> System.arraycopy(SimulatedFabric.sum(all, (int) (rank * recvCount), (int) recvCount),
                            0, out, 0, (int) recvCount));
        }

        @Override
        public void broadcast(GpuBuffer send, GpuBuffer recv, long count, CommDType type, int root,
                              GpuStream stream) {
            collective("Broadcast", send, recv, count * type.bytes(), type, stream,
                    (all, out) -> System.arraycopy((float[]) all[root], 0, out, 0, (int) count));
        }

        @Override
        public void allToAll(GpuBuffer send, GpuBuffer recv, long countPerPeer, CommDType type,
                             GpuStream stream) {
            enqueued += 2L * size() - 1; // the CUDA session makes one send and one receive per peer; collective() counts one
            collective("SendRecv", send, recv, countPerPeer * type.bytes() * size(), type, stream, (all, out) -> {
                for (int p = 0; p < all.length; p++) {
                    System.arraycopy((float[]) all[p], (int) (rank * countPerPeer), out, (int) (p * countPerPeer),
                            (int) countPerPeer);
                }
            });
        }

        @Override
        public Communicator split(int color, int key) {
            Object[] pairs = fabric.exchange(rank, new int[] {color, key});
            List<Integer> members = SimulatedFabric.members(pairs, color);
            SimulatedFabric child = SimulatedFabric.join(fabric.childId(color), members.size());
            int childRank = members.indexOf(rank);
            child.exchange(childRank, null);
            return new SimComm(child, childRank);
        }

        @Override
        public Optional<String> asyncError() {
            return Optional.ofNullable(commAsyncError);
        }

        @Override
        public void abort() {
            if (!released) {
                released = true;
                communicatorAborts++;
                abortedWhileHung.countDown();
            }
        }

        @Override
        public void close() {
            released = true;
        }
    }

    public long allocatedBytes() {
        return allocated;
    }

    @Override
    public void close() {
    }
}
