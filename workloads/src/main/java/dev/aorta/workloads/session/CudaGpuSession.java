package dev.aorta.workloads.session;

import dev.aorta.core.event.DeviceActivity;
import dev.aorta.gpu.blas.Cublas;
import dev.aorta.gpu.blas.GemmPrecision;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.CudaModule;
import dev.aorta.gpu.cuda.DeviceInfo;
import dev.aorta.gpu.cuda.Event;
import dev.aorta.gpu.cuda.Kernel;
import dev.aorta.gpu.cuda.KernelLaunch;
import dev.aorta.gpu.cuda.MemoryStats;
import dev.aorta.gpu.cuda.PinnedHostBuffer;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.gpu.cupti.CuptiTracer;
import dev.aorta.gpu.nccl.Nccl;
import dev.aorta.gpu.nccl.NcclComm;
import dev.aorta.gpu.nccl.NcclDataType;
import dev.aorta.gpu.nccl.NcclRedOp;
import dev.aorta.gpu.nccl.NcclUniqueId;
import dev.aorta.gpu.nvrtc.Nvrtc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The real {@link GpuSession}: the {@code gpu} module's CUDA device (JCuda driver API on the primary context),
 * its FFM launch path, NVRTC, one cuBLAS handle per stream, and CUPTI for device activity.
 */
public final class CudaGpuSession implements GpuSession {
    private final CudaDevice device;
    private final DeviceInfo info;
    private final List<CudaStream> streams = new ArrayList<>();
    private final Map<CudaStream, Cublas> blasByStream = new IdentityHashMap<>();
    /** Closed in reverse order of creation when the session closes. */
    private final Deque<AutoCloseable> owned = new ArrayDeque<>();
    private final List<DeviceActivity> captured = Collections.synchronizedList(new ArrayList<>());
    private CuptiTracer tracer;
    /** Page-locked landing place of {@link #readIntOnStream}, made on first use. */
    private PinnedHostBuffer readback;
    private MemorySegment readbackSegment;

    private CudaGpuSession(CudaDevice device) {
        this.device = device;
        this.info = device.info();
    }

    /** Opens GPU {@code ordinal} (looked up by {@link GpuSessions#open}). */
    public static CudaGpuSession open(int ordinal) {
        return new CudaGpuSession(CudaDevice.open(ordinal));
    }

    @Override
    public DeviceInfo deviceInfo() {
        return info;
    }

    @Override
    public GpuStream createStream(int priority) {
        CudaStream s = new CudaStream(device.createStream(priority, true));
        streams.add(s);
        if (tracer != null) {
            tracer.registerStream(device.contextAddress(), s.stream.address());
        }
        return s;
    }

    @Override
    public GpuEvent createEvent() {
        return new CudaEvent(device.createEvent(false));
    }

    @Override
    public GpuEvent createTimingEvent() {
        return new CudaEvent(device.createEvent(true));
    }

    @Override
    public GpuBuffer allocate(long bytes) {
        return new CudaBuffer(device.allocate(bytes));
    }

    @Override
    public HostBuffer allocatePinned(long bytes) {
        CudaHostBuffer b = new CudaHostBuffer(device.allocatePinned(bytes));
        owned.push(b);
        return b;
    }

    @Override
    public void copyHostToDevice(GpuBuffer dst, HostBuffer src, long bytes, GpuStream stream) {
        cuda(dst).memory.copyFromAsync(pinned(src), bytes, cuda(stream).stream);
    }

    @Override
    public void copyDeviceToHost(HostBuffer dst, GpuBuffer src, long bytes, GpuStream stream) {
        cuda(src).memory.copyToAsync(pinned(dst), bytes, cuda(stream).stream);
    }

    @Override
    public void copyDeviceToDevice(GpuBuffer dst, GpuBuffer src, long bytes, GpuStream stream) {
        cuda(dst).memory.copyFromAsync(cuda(src).memory, bytes, cuda(stream).stream);
    }

    private static PinnedHostBuffer pinned(HostBuffer b) {
        if (b instanceof CudaHostBuffer c && !c.closed) {
            return c.memory;
        }
        throw new IllegalArgumentException("host buffer " + b + " is closed or does not belong to a CUDA session");
    }

    /** Pinned memory that the workload or, at the latest, the session's close frees (once). */
    private static final class CudaHostBuffer implements HostBuffer {
        final PinnedHostBuffer memory;
        boolean closed;

        CudaHostBuffer(PinnedHostBuffer memory) {
            this.memory = memory;
        }

        @Override
        public long bytes() {
            return memory.bytes();
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                memory.close();
            }
        }
    }

    @Override
    public float[] readFloats(GpuBuffer buffer, int count) {
        if (!(buffer instanceof CudaBuffer b)) {
            throw new IllegalArgumentException("buffer " + buffer + " does not belong to a CUDA session");
        }
        device.synchronize();
        float[] out = new float[count];
        b.memory.copyTo(out);
        return out;
    }

    @Override
    public int[] readInts(GpuBuffer buffer, int count) {
        device.synchronize();
        int[] out = new int[count];
        cuda(buffer).memory.copyTo(out);
        return out;
    }

    @Override
    public int[] readInts(GpuBuffer buffer, long byteOffset, int count) {
        if (byteOffset % 4 != 0 || byteOffset < 0 || byteOffset + 4L * count > buffer.bytes()) {
            throw new IllegalArgumentException("readInts: " + count + " words from byte " + byteOffset
                    + " are not 4-byte words inside the buffer's " + buffer.bytes() + " bytes");
        }
        device.synchronize();
        int[] out = new int[count];
        cuda(buffer).memory.copyTo(byteOffset, out);
        return out;
    }

    @Override
    public void writeHost(HostBuffer buffer, long byteOffset, int[] words) {
        MemorySegment.copy(words, 0, hostWords(buffer, byteOffset, words.length), ValueLayout.JAVA_INT_UNALIGNED, 0,
                words.length);
    }

    @Override
    public int[] readHost(HostBuffer buffer, long byteOffset, int count) {
        device.synchronize();
        int[] out = new int[count];
        MemorySegment.copy(hostWords(buffer, byteOffset, count), ValueLayout.JAVA_INT_UNALIGNED, 0, out, 0, count);
        return out;
    }

    private static MemorySegment hostWords(HostBuffer buffer, long byteOffset, int count) {
        if (byteOffset % 4 != 0 || byteOffset < 0 || byteOffset + 4L * count > buffer.bytes()) {
            throw new IllegalArgumentException(count + " words from byte " + byteOffset
                    + " are not 4-byte words inside the host buffer's " + buffer.bytes() + " bytes");
        }
        return pinned(buffer).segment().asSlice(byteOffset, 4L * count);
    }

    @Override
    public void writeFloats(GpuBuffer buffer, float[] values) {
        device.synchronize();
        cuda(buffer).memory.copyFrom(values);
    }

    @Override
    public int readIntOnStream(GpuBuffer buffer, GpuStream stream) {
        if (readback == null) {
            PinnedHostBuffer pinned = device.allocatePinned(Integer.BYTES);
            owned.push(pinned);
            readback = pinned;
            readbackSegment = pinned.segment();
        }
        CudaStream s = cuda(stream);
        cuda(buffer).memory.copyToAsync(readback, Integer.BYTES, s.stream);
        s.stream.synchronize();
        return readbackSegment.get(ValueLayout.JAVA_INT, 0);
    }

    private static CudaBuffer cuda(GpuBuffer buffer) {
        if (buffer instanceof CudaBuffer b) {
            return b;
        }
        throw new IllegalArgumentException("buffer " + buffer + " does not belong to a CUDA session");
    }

    /** Device memory from the device's caching allocator. */
    private record CudaBuffer(dev.aorta.gpu.cuda.DeviceBuffer memory) implements GpuBuffer {
        @Override
        public long address() {
            return memory.address();
        }

        @Override
        public long bytes() {
            return memory.bytes();
        }

        @Override
        public void close() {
            memory.close();
        }
    }

    @Override
    public KernelModule loadModule(String name, String cudaSource) {
        CudaModule module = device.loadModule(Nvrtc.get().compile(cudaSource, name, device.info().arch()));
        owned.push(module);
        Map<String, Kernel> kernels = new HashMap<>();
        return (function, grid, block, sharedBytes, stream, args) -> {
            Kernel k = kernels.computeIfAbsent(function, f -> {
                try {
                    return module.kernel(f);
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException("module " + name + " has no kernel " + f + ": " + e.getMessage(), e);
                }
            });
            KernelLaunch launch = k.prepare(grid.x(), grid.y(), grid.z(), block.x(), block.y(), block.z(), sharedBytes,
                    cuda(stream).stream, args.length);
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case KernelArg.Pointer p -> launch.pointer(i, p.buffer().address());
                    case KernelArg.Int32 v -> launch.intArg(i, v.value());
                    case KernelArg.Int64 v -> launch.longArg(i, v.value());
                    case KernelArg.Float32 v -> launch.floatArg(i, v.value());
                }
            }
            boolean[] isInt = new boolean[args.length];
            for (int i = 0; i < args.length; i++) {
                isInt[i] = args[i] instanceof KernelArg.Int32;
            }
            return new PreparedLaunch() {
                @Override
                public void launch() {
                    launch.launch();
                }

                @Override
                public void setInt(int index, int value) {
                    if (index < 0 || index >= isInt.length || !isInt[index]) {
                        throw new IllegalArgumentException("argument " + index + " of " + function + " is not an int32");
                    }
                    launch.intArg(index, value);
                }
            };
        };
    }

    @Override
    public PreparedGemm prepareGemm(GemmSpec spec, GpuBuffer a, GpuBuffer b, GpuBuffer c, GpuStream stream) {
        requireBytes(a, spec.bytesA(), "A");
        requireBytes(b, spec.bytesB(), "B");
        requireBytes(c, spec.bytesC(), "C");
        CudaStream s = cuda(stream);
        // the handle (and its 32 MiB workspace) lives as long as its stream: a sweep makes and closes many streams
        Cublas blas = blasByStream.computeIfAbsent(s, k -> new Cublas(device, k.stream));
        GemmPrecision p = GemmPrecision.valueOf(spec.dtype().name());
        int m = spec.m();
        int n = spec.n();
        int k = spec.k();
        long pa = a.address();
        long pb = b.address();
        long pc = c.address();
        if (spec.batch() == 1) {
            return () -> blas.gemm(p, false, false, m, n, k, 1f, pa, m, pb, k, 0f, pc, m);
        }
        int batch = spec.batch();
        return () -> blas.gemmStridedBatched(p, m, n, k, pa, (long) m * k, pb, (long) k * n, pc, (long) m * n, batch);
    }

    private static void requireBytes(GpuBuffer buf, long bytes, String which) {
        if (buf.bytes() < bytes) {
            throw new IllegalArgumentException("GEMM operand " + which + " needs " + bytes + " bytes, its buffer has "
                    + buf.bytes());
        }
    }

    @Override
    public String activityCaptureUnavailableReason() {
        try {
            CuptiTracer.version();
            return null;
        } catch (RuntimeException e) {
            return e.getMessage();
        }
    }

    @Override
    public void startActivityCapture() {
        captured.clear();
        tracer = CuptiTracer.start(captured::add, null, 0, true);
        for (CudaStream s : streams) {
            tracer.registerStream(device.contextAddress(), s.stream.address());
        }
    }

    private void requireCapture() {
        if (tracer == null) {
            throw new IllegalStateException("no activity capture was started");
        }
    }

    @Override
    public void discardCapturedActivity() {
        requireCapture();
        tracer.flush();
        captured.clear();
    }

    @Override
    public List<DeviceActivity> stopActivityCapture() {
        requireCapture();
        try {
            tracer.stop();
        } finally {
            tracer = null;
        }
        synchronized (captured) {
            return List.copyOf(captured);
        }
    }

    @Override
    public CommunicatorId newCommunicatorId() {
        return new CommunicatorId(Nccl.get().newUniqueId().bytes());
    }

    @Override
    public Communicator openCommunicator(CommunicatorId id, int size, int rank) {
        device.makeCurrent();  // NCCL binds the communicator to the device current on the calling thread
        NcclCommunicator c = new NcclCommunicator(Nccl.get().initRank(new NcclUniqueId(id.bytes()), size, rank));
        owned.push(c);
        return c;
    }

    /**
     * An NCCL communicator. {@link #abort()} may come from a watchdog thread while the owner is blocked on the
     * device: the flag makes exactly one of abort/close free the native communicator, and makes later calls of
     * the owner fail clearly instead of passing NCCL a freed handle.
     */
    private final class NcclCommunicator implements Communicator {
        private final NcclComm comm;
        private final AtomicBoolean released = new AtomicBoolean();

        NcclCommunicator(NcclComm comm) {
            this.comm = comm;
        }

        @Override
        public int rank() {
            return comm.rank();
        }

        @Override
        public int size() {
            return comm.size();
        }

        @Override
        public void allReduce(GpuBuffer send, GpuBuffer recv, long count, CommDType type, GpuStream stream) {
            requireOpen();
            comm.allReduce(send.address(), recv.address(), count, nccl(type), NcclRedOp.SUM, cuda(stream).stream);
        }

        @Override
        public void allGather(GpuBuffer send, GpuBuffer recv, long sendCount, CommDType type, GpuStream stream) {
            requireOpen();
            comm.allGather(send.address(), recv.address(), sendCount, nccl(type), cuda(stream).stream);
        }

        @Override
        public void reduceScatter(GpuBuffer send, GpuBuffer recv, long recvCount, CommDType type,
                                  GpuStream stream) {
            requireOpen();
            comm.reduceScatter(send.address(), recv.address(), recvCount, nccl(type), NcclRedOp.SUM,
                    cuda(stream).stream);
        }

        @Override
        public void broadcast(GpuBuffer send, GpuBuffer recv, long count, CommDType type, int root,
                              GpuStream stream) {
            requireOpen();
            comm.broadcast(send.address(), recv.address(), count, nccl(type), root, cuda(stream).stream);
        }

        @Override
        public void allToAll(GpuBuffer send, GpuBuffer recv, long countPerPeer, CommDType type,
                             GpuStream stream) {
            requireOpen();
            Stream s = cuda(stream).stream;
            long blockBytes = countPerPeer * type.bytes();
            Nccl nccl = Nccl.get();
            nccl.groupStart();
            try {
                for (int peer = 0; peer < comm.size(); peer++) {
                    comm.send(send.address() + peer * blockBytes, countPerPeer, nccl(type), peer, s);
                    comm.recv(recv.address() + peer * blockBytes, countPerPeer, nccl(type), peer, s);
                }
            } finally {
                nccl.groupEnd();
            }
        }

        @Override
        public Communicator split(int color, int key) {
            requireOpen();
            NcclCommunicator c = new NcclCommunicator(comm.split(color, key));
            owned.push(c);
            return c;
        }

        @Override
        public Optional<String> asyncError() {
            return released.get() ? Optional.empty() : comm.asyncError();
        }

        @Override
        public void abort() {
            if (released.compareAndSet(false, true)) {
                comm.abort();
            }
        }

        @Override
        public void close() {
            if (released.compareAndSet(false, true)) {
                comm.close();
            }
        }

        private void requireOpen() {
            if (released.get()) {
                throw new IllegalStateException("the NCCL communicator (rank " + comm.rank() + " of " + comm.size()
                        + ") was aborted or closed");
            }
        }

        private static NcclDataType nccl(CommDType type) {
            return switch (type) {
                case FP32 -> NcclDataType.FLOAT32;
                case BF16 -> NcclDataType.BFLOAT16;
                case FP16 -> NcclDataType.FLOAT16;
            };
        }
    }

    @Override
    public long enqueuedWork() {
        return device.enqueues().total(); // every stream of the session and of the model's ops is one of the device's
    }

    @Override
    public MemoryStats memoryStats() {
        return device.memoryStats();
    }

    @Override
    public CudaDevice cudaDevice() {
        return device;
    }

    @Override
    public Stream cudaStream(GpuStream stream) {
        return cuda(stream).stream;
    }

    /** NVML's handle is looked up once; a session without NVML says why on every reading. */
    private NvmlTelemetry telemetry;

    @Override
    public GpuTelemetry telemetry() {
        if (telemetry == null) {
            telemetry = NvmlTelemetry.forPciBusId(device.info().pciBusId());
        }
        return telemetry.read();
    }

    @Override
    public void synchronize() {
        device.synchronize();
    }

    @Override
    public void close() {
        RuntimeException first = null;
        if (tracer != null) {
            try {
                tracer.stop();
            } catch (RuntimeException e) {
                first = e;
            }
            tracer = null;
        }
        for (Cublas blas : blasByStream.values()) {  // of streams the caller left open
            try {
                blas.close();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        blasByStream.clear();
        while (!owned.isEmpty()) {
            try {
                owned.pop().close();
            } catch (Exception e) {
                first = first == null ? new IllegalStateException("closing GPU resources: " + e.getMessage(), e) : first;
            }
        }
        device.close();
        if (first != null) {
            throw first;
        }
    }

    private static CudaStream cuda(GpuStream s) {
        if (s instanceof CudaStream c) {
            return c;
        }
        throw new IllegalArgumentException("stream " + s + " does not belong to a CUDA session");
    }

    /**
     * A stream of this session; its activity id is its CUstream address (the tracer maps CUPTI's ids to it).
     * Closing it drops it from the session's live streams: CUPTI must never be asked about a destroyed stream.
     */
    private final class CudaStream implements GpuStream {
        final Stream stream;

        CudaStream(Stream stream) {
            this.stream = stream;
        }

        @Override
        public int priority() {
            return stream.priority();
        }

        @Override
        public long activityStreamId() {
            return stream.address();
        }

        @Override
        public void waitEvent(GpuEvent event) {
            stream.waitFor(((CudaEvent) event).event);
        }

        @Override
        public void synchronize() {
            stream.synchronize();
        }

        @Override
        public void close() {
            streams.remove(this);
            Cublas blas = blasByStream.remove(this);
            if (blas != null) {
                stream.synchronize();  // its workspace goes back to the allocator: no GEMM of this stream may still use it
                blas.close();
            }
            stream.close();
        }
    }

    private static final class CudaEvent implements GpuEvent {
        final Event event;

        CudaEvent(Event event) {
            this.event = event;
        }

        @Override
        public void record(GpuStream stream) {
            event.record(cuda(stream).stream);
        }

        @Override
        public void synchronize() {
            event.synchronize();
        }

        @Override
        public float elapsedMsSince(GpuEvent start) {
            return event.millisSince(((CudaEvent) start).event);
        }

        @Override
        public void close() {
            event.close();
        }
    }
}
