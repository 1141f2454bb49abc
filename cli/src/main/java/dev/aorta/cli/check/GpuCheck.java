package dev.aorta.cli.check;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.gpu.GpuLibraries;
import dev.aorta.gpu.blas.Cublas;
import dev.aorta.gpu.blas.GemmPrecision;
import dev.aorta.cli.check.CheckResult.Status;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.CudaModule;
import dev.aorta.gpu.cuda.DeviceBuffer;
import dev.aorta.gpu.cuda.DeviceInfo;
import dev.aorta.gpu.cuda.Event;
import dev.aorta.gpu.cuda.KernelLaunch;
import dev.aorta.gpu.cuda.MemoryStats;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.gpu.cupti.CuptiTracer;
import dev.aorta.gpu.nccl.Nccl;
import dev.aorta.gpu.nccl.NcclComm;
import dev.aorta.gpu.nccl.NcclDataType;
import dev.aorta.gpu.nccl.NcclRedOp;
import dev.aorta.gpu.nvml.Nvml;
import dev.aorta.gpu.nvrtc.Nvrtc;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.aorta.gpu.GpuException;
import dev.aorta.gpu.cuda.Cu;
import dev.aorta.gpu.cuda.Handles;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The GPU runtime's acceptance check: library discovery, NVRTC kernels and cuBLAS GEMMs against CPU
 * references on random data, bf16 GEMM throughput, the launch path's cost (against a C {@code cuLaunchKernel}
 * loop measured by the caller), a 1-rank NCCL all-reduce, memory accounting against {@code cuMemGetInfo},
 * and CUPTI's record of every kernel launched. Each step adds rows to the table; a failing step is a FAIL row,
 * never an abort of the remaining steps.
 */
public final class GpuCheck {
    /**
     * Options of the check.
     *
     * @param cLaunchLoop the shared library built from scripts/bench/launch_loop.c, or null to skip the C comparison
     */
    public record Options(int device, int launches, int repetitions, Path cLaunchLoop, int gemmSize,
                          boolean verbose) {
    }

    private final Options options;
    private final PrintStream log;
    private final List<CheckResult> rows = new ArrayList<>();
    private CudaDevice device;
    private CudaModule module;
    private Stream stream;
    /** Kernels this check launched while CUPTI was recording, and on which stream. */
    private long tracedLaunches;

    public GpuCheck(Options options, PrintStream log) {
        this.options = options;
        this.log = log;
    }

    public List<CheckResult> run() {
        step("1 libraries", this::libraries);
        if (device == null) {
            return rows;
        }
        try {
            // launch cost first: once CUPTI has been active in a process, the driver keeps its callback layer
            // and every later launch pays for it
            step("4 launch cost", this::launchCost);
            step("2+7 kernels under CUPTI", this::kernelsUnderCupti);
            step("3 cuBLAS", this::cublas);
            step("5 NCCL", this::nccl);
            step("6 memory", this::memory);
        } finally {
            device.close();
        }
        return rows;
    }

    private interface Step {
        void run() throws Throwable;
    }

    private void step(String name, Step s) {
        log.println("== " + name);
        long t0 = System.nanoTime();
        try {
            s.run();
        } catch (Throwable t) {
            rows.add(new CheckResult(name, "error", String.valueOf(t.getMessage()).lines().findFirst().orElse(""), "",
                    Status.FAIL));
            if (options.verbose()) {
                t.printStackTrace(log);
            } else {
                log.println("   " + t);
            }
        }
        log.printf("   (%.1f s)%n", (System.nanoTime() - t0) / 1e9);
    }

    private void libraries() {
        for (GpuLibraries.Found f : GpuLibraries.probe()) {
            rows.add(new CheckResult("1 libraries", f.library(), f.loaded() ? f.version() : "not loaded",
                    f.where(), f.loaded() ? Status.INFO : Status.FAIL));
        }
        device = CudaDevice.open(options.device());
        DeviceInfo i = device.info();
        rows.add(CheckResult.info("1 device", "GPU " + i.ordinal(), i.name() + ", " + i.arch() + ", "
                + i.multiprocessors() + " SMs, " + (i.totalMemoryBytes() >> 20) + " MiB, L2 " + (i.l2CacheBytes() >> 20)
                + " MiB, stream priorities " + i.greatestStreamPriority() + ".." + i.leastStreamPriority()));
        try {
            Nvml.Device n = Nvml.get().device(options.device());
            rows.add(CheckResult.info("1 device", "telemetry", n.smClockMHz() + " MHz SM, " + n.memoryClockMHz()
                    + " MHz mem, " + n.temperatureC() + " C, " + n.powerMilliwatts() / 1000 + " W, PCIe rx/tx "
                    + n.pcieRxKBps() + "/" + n.pcieTxKBps() + " KB/s"));
        } catch (RuntimeException e) {
            rows.add(new CheckResult("1 device", "telemetry", "NVML: " + e.getMessage(), "", Status.SKIP));
        }
        long t0 = System.nanoTime();
        byte[] cubin = Nvrtc.get().compile(Nvrtc.resource(GpuCheck.class, "/kernels/check.cu"), "check.cu",
                device.info().arch());
        rows.add(CheckResult.info("1 libraries", "NVRTC compile check.cu", String.format("%d bytes cubin in %.0f ms",
                cubin.length, (System.nanoTime() - t0) / 1e6)));
        module = device.loadModule(cubin);
        stream = device.createStream(0, true);
    }

    private void kernelsUnderCupti() throws Exception {
        ConcurrentLinkedQueue<DeviceActivity> activities = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<ApiCall> api = new ConcurrentLinkedQueue<>();
        CuptiTracer tracer = CuptiTracer.start(activities::add, api::add, 0, true);
        tracer.registerStream(device.contextAddress(), stream.address());
        try {
            elementwiseAndReduction();
            int n = options.launches() / 10;
            long ns = launchLoop(n);
            tracedLaunches += n;
            stream.synchronize();
            rows.add(CheckResult.info("7 CUPTI", "launch cost while CUPTI records kernels + driver API",
                    String.format("%.3f us/launch (%d launches)", ns / 1e3 / n, n)));
        } finally {
            tracer.stop();
        }
        verifyCupti(activities, api, tracer);
        // what profiling costs a launch-bound program when only device activity is recorded (the harness's mode)
        int n = options.launches() / 10;
        ConcurrentLinkedQueue<DeviceActivity> kernelsOnly = new ConcurrentLinkedQueue<>();
        CuptiTracer lean = CuptiTracer.start(kernelsOnly::add, null, 0, true);
        long ns;
        try {
            launchLoop(n);
            ns = launchLoop(n);
        } finally {
            lean.stop();
        }
        rows.add(CheckResult.info("7 CUPTI", "launch cost while CUPTI records kernels only", String.format(
                "%.3f us/launch (%d launches, %d records)", ns / 1e3 / n, n, kernelsOnly.size())));
    }

    private void elementwiseAndReduction() {
        int n = 1 << 24;
        float[] x = HostReference.randomFloats(n, 1);
        float[] y = HostReference.randomFloats(n, 2);
        float a = 1.75f;
        try (DeviceBuffer dx = device.allocate(4L * n); DeviceBuffer dy = device.allocate(4L * n);
             DeviceBuffer partial = device.allocate(4L * 1024); DeviceBuffer total = device.allocate(4)) {
            dx.copyFrom(x);
            dy.copyFrom(y);
            KernelLaunch saxpy = module.kernel("saxpy").prepare(1024, 256, stream, 4)
                    .floatArg(0, a).pointer(1, dx).pointer(2, dy).intArg(3, n);
            saxpy.launch();
            tracedLaunches++;
            stream.synchronize();
            float[] out = new float[n];
            dy.copyTo(out);
            double num = 0;
            double den = 0;
            for (int i = 0; i < n; i++) {
                double ref = (double) a * x[i] + y[i];
                num += (out[i] - ref) * (out[i] - ref);
                den += ref * ref;
            }
            double saxpyErr = Math.sqrt(num / den);
            rows.add(CheckResult.judged("2 NVRTC", "saxpy 16M fp32 rel. error", String.format("%.2e", saxpyErr),
                    "< 1e-6", saxpyErr < 1e-6));

            module.kernel("reduce_sum").prepare(1024, 256, stream, 3).pointer(0, dx).pointer(1, partial).intArg(2, n)
                    .launch();
            module.kernel("reduce_sum").prepare(1, 256, stream, 3).pointer(0, partial).pointer(1, total)
                    .intArg(2, 1024).launch();
            tracedLaunches += 2;
            stream.synchronize();
            float[] sum = new float[1];
            total.copyTo(sum);
            double ref = 0;
            double absSum = 0;
            for (float v : x) {
                ref += v;
                absSum += Math.abs(v);
            }
            // relative to Σ|x|: the sum of random signed values is near zero, and fp32 accumulation error
            // scales with the magnitudes added, not with the result
            double sumErr = Math.abs(sum[0] - ref) / absSum;
            rows.add(CheckResult.judged("2 NVRTC", "reduce_sum 16M fp32 error / sum|x|",
                    String.format("%.2e (gpu %.4f, cpu %.4f)", sumErr, sum[0], ref), "< 1e-6", sumErr < 1e-6));
        }
    }

    /** Launches the two-parameter probe {@code count} times back to back; returns host ns for the loop. */
    private long launchLoop(int count) {
        try (DeviceBuffer p = device.allocate(4)) {
            KernelLaunch probe = module.kernel("launch_probe").prepare(1, 32, stream, 2).pointer(0, p).intArg(1, 1);
            long t0 = System.nanoTime();
            for (int i = 0; i < count; i++) {
                probe.launch();
            }
            long ns = System.nanoTime() - t0;
            stream.synchronize();
            return ns;
        }
    }

    /** The same loop in C (scripts/bench/launch_loop.c), same kernel, stream and parameters; host ns. */
    private long cLaunchLoop(MethodHandle loop, int count) throws Throwable {
        try (DeviceBuffer p = device.allocate(4)) {
            long ns = (long) loop.invokeExact(Handles.address(module.kernel("launch_probe").function()),
                    stream.address(), p.address(), 1, count);
            if (ns < 0) {
                throw new GpuException("cuLaunchKernel (C loop)", (int) -ns, Cu.describe((int) -ns));
            }
            stream.synchronize();
            return ns;
        }
    }

    private void verifyCupti(ConcurrentLinkedQueue<DeviceActivity> activities, ConcurrentLinkedQueue<ApiCall> api,
                             CuptiTracer tracer) {
        List<DeviceActivity> kernels = activities.stream().filter(a -> a.kind() == ActivityKind.KERNEL).toList();
        rows.add(CheckResult.judged("7 CUPTI", "kernel records / kernels launched", kernels.size() + " / "
                + tracedLaunches, "equal", kernels.size() == tracedLaunches));
        long bad = kernels.stream().filter(k -> k.startNs() >= k.endNs()).count();
        rows.add(CheckResult.judged("7 CUPTI", "records with start < end", (kernels.size() - bad) + " / "
                + kernels.size(), "all", bad == 0 && !kernels.isEmpty()));
        long onStream = kernels.stream().filter(k -> k.stream() == stream.address()).count();
        rows.add(CheckResult.judged("7 CUPTI", "records on the launching stream", onStream + " / " + kernels.size(),
                "all", onStream == kernels.size() && !kernels.isEmpty()));
        Set<Long> launchCorrelations = new HashSet<>();
        for (ApiCall c : api) {
            if (c.name().startsWith("cuLaunchKernel")) {
                launchCorrelations.add(c.correlationId());
            }
        }
        long matched = kernels.stream().filter(k -> launchCorrelations.contains(k.correlationId())).count();
        rows.add(CheckResult.judged("7 CUPTI", "kernel correlation ids = cuLaunchKernel call ids",
                matched + " / " + kernels.size() + " (" + launchCorrelations.size() + " launch calls)", "all",
                matched == kernels.size() && launchCorrelations.size() == tracedLaunches));
        long withLatency = kernels.stream().filter(k -> k.queuedNs() != DeviceActivity.UNKNOWN).count();
        rows.add(CheckResult.info("7 CUPTI", "kernels with queued/submitted timestamps", withLatency + " / "
                + kernels.size() + ", dropped records " + tracer.droppedRecords()));
    }

    /**
     * Our launch path against the C loop, in this process, repetitions interleaved (C first on even ones, ours
     * first on odd ones) so drift in clocks or driver state hits both alike; medians compared.
     */
    private void launchCost() throws Throwable {
        int n = options.launches();
        int reps = options.repetitions();
        MethodHandle c = options.cLaunchLoop() == null ? null : Linker.nativeLinker().downcallHandle(
                SymbolLookup.libraryLookup(options.cLaunchLoop(), Arena.global()).find("aorta_c_launch_loop")
                        .orElseThrow(() -> new IllegalArgumentException(options.cLaunchLoop()
                                + " has no function aorta_c_launch_loop (build it from scripts/bench/launch_loop.c)")),
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT));
        launchLoop(n); // warm-up: JIT and driver queues
        if (c != null) {
            cLaunchLoop(c, n);
        }
        double[] ours = new double[reps];
        double[] theirs = new double[reps];
        for (int r = 0; r < reps; r++) {
            if (c != null && r % 2 == 0) {
                theirs[r] = cLaunchLoop(c, n) / 1e3 / n;
            }
            ours[r] = launchLoop(n) / 1e3 / n;
            if (c != null && r % 2 == 1) {
                theirs[r] = cLaunchLoop(c, n) / 1e3 / n;
            }
        }
        double java = median(ours);
        rows.add(CheckResult.info("4 launch", "aorta KernelLaunch, 2 params", String.format(
                "%.3f us/launch (median of %d x %d; min %.3f, max %.3f)", java, reps, n, ours[0], ours[reps - 1])));
        if (c == null) {
            rows.add(new CheckResult("4 launch", "ratio to C cuLaunchKernel", "C loop not given (--c-launch-loop)",
                    "<= 1.10", Status.SKIP));
            return;
        }
        double cMedian = median(theirs);
        rows.add(CheckResult.info("4 launch", "C cuLaunchKernel loop, 2 params", String.format(
                "%.3f us/launch (median of %d x %d; min %.3f, max %.3f)", cMedian, reps, n, theirs[0], theirs[reps - 1])));
        rows.add(CheckResult.judged("4 launch", "ratio aorta / C", String.format("%.3f", java / cMedian), "<= 1.10",
                java / cMedian <= 1.10));
    }

    /** Sorts {@code v} in place and returns its median. */
    private static double median(double[] v) {
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    private void cublas() {
        int m = 256;
        int n = 192;
        int k = 160;
        float[] a = HostReference.randomFloats(m * k, 3);
        float[] b = HostReference.randomFloats(k * n, 4);
        try (Cublas blas = new Cublas(device, stream)) {
            gemmAccuracy(blas, GemmPrecision.FP32, a, b, m, n, k, 1e-5);
            gemmAccuracy(blas, GemmPrecision.TF32, a, b, m, n, k, 5e-3);
            gemmAccuracy(blas, GemmPrecision.FP16, a, b, m, n, k, 5e-3);
            gemmAccuracy(blas, GemmPrecision.BF16, a, b, m, n, k, 1e-2);
            gemmThroughput(blas, GemmPrecision.BF16, options.gemmSize(), 700);
            gemmThroughput(blas, GemmPrecision.FP32, options.gemmSize(), Double.NaN);
            gemmThroughput(blas, GemmPrecision.TF32, options.gemmSize(), Double.NaN);
        }
    }

    /** Runs one GEMM at precision {@code p} on inputs rounded to it, against float64 on the same rounded inputs. */
    private void gemmAccuracy(Cublas blas, GemmPrecision p, float[] a, float[] b, int m, int n, int k, double tol) {
        double[] ra = new double[a.length];
        double[] rb = new double[b.length];
        double[] out = new double[m * n];
        try (DeviceBuffer da = device.allocate((long) a.length * p.elementBytes());
             DeviceBuffer db = device.allocate((long) b.length * p.elementBytes());
             DeviceBuffer dc = device.allocate((long) m * n * p.elementBytes())) {
            if (p.elementBytes() == 4) {
                da.copyFrom(a);
                db.copyFrom(b);
                ra = HostReference.widen(a);
                rb = HostReference.widen(b);
                dc.fill32Async(0x7fc00000, (long) m * n, stream); // poison with NaN: every element must be written
                blas.gemm(p, m, n, k, da, db, dc);
                float[] c = new float[m * n];
                stream.synchronize();
                dc.copyTo(c);
                out = HostReference.widen(c);
            } else {
                boolean bf = p == GemmPrecision.BF16;
                short[] ha = new short[a.length];
                short[] hb = new short[b.length];
                for (int i = 0; i < a.length; i++) {
                    ha[i] = bf ? HostReference.toBf16(a[i]) : HostReference.toFp16(a[i]);
                    ra[i] = bf ? HostReference.fromBf16(ha[i]) : HostReference.fromFp16(ha[i]);
                }
                for (int i = 0; i < b.length; i++) {
                    hb[i] = bf ? HostReference.toBf16(b[i]) : HostReference.toFp16(b[i]);
                    rb[i] = bf ? HostReference.fromBf16(hb[i]) : HostReference.fromFp16(hb[i]);
                }
                da.copyFrom(ha);
                db.copyFrom(hb);
                dc.fill8Async((byte) 0xff, (long) m * n * 2, stream); // 0xffff is NaN in both formats
                blas.gemm(p, m, n, k, da, db, dc);
                short[] c = new short[m * n];
                stream.synchronize();
                dc.copyTo(c);
                for (int i = 0; i < c.length; i++) {
                    out[i] = bf ? HostReference.fromBf16(c[i]) : HostReference.fromFp16(c[i]);
                }
            }
        }
        double err = HostReference.relativeError(out, HostReference.gemm(ra, rb, m, n, k));
        rows.add(CheckResult.judged("3 cuBLAS", p + " GEMM " + m + "x" + n + "x" + k + " rel. error vs float64",
                String.format("%.2e", err), "< " + tol, err < tol));
    }

    private void gemmThroughput(Cublas blas, GemmPrecision p, int size, double minTflops) {
        long elements = (long) size * size;
        try (DeviceBuffer a = device.allocate(elements * p.elementBytes());
             DeviceBuffer b = device.allocate(elements * p.elementBytes());
             DeviceBuffer c = device.allocate(elements * p.elementBytes());
             Event start = device.createEvent(true); Event end = device.createEvent(true)) {
            if (p == GemmPrecision.FP16) {
                throw new IllegalArgumentException("check.cu has no fp16 random fill; time bf16, fp32 or tf32");
            }
            String fill = p == GemmPrecision.BF16 ? "fill_random_bf16" : "fill_random_f32";
            module.kernel(fill).prepare(1024, 256, stream, 3).pointer(0, a).longArg(1, elements).intArg(2, 11).launch();
            module.kernel(fill).prepare(1024, 256, stream, 3).pointer(0, b).longArg(1, elements).intArg(2, 12).launch();
            for (int i = 0; i < 5; i++) {
                blas.gemm(p, size, size, size, a, b, c);
            }
            int reps = p == GemmPrecision.BF16 ? 30 : 10;
            double[] ms = new double[reps];
            for (int i = 0; i < reps; i++) {
                start.record(stream);
                blas.gemm(p, size, size, size, a, b, c);
                end.record(stream);
                end.synchronize();
                ms[i] = end.millisSince(start);
            }
            Arrays.sort(ms);
            double median = ms[reps / 2];
            double tflops = 2.0 * size * size * (double) size / (median * 1e-3) / 1e12;
            String value = String.format("%.1f TFLOP/s (median %.3f ms of %d, random data)", tflops, median, reps);
            String item = p + " GEMM " + size + "^3 throughput";
            rows.add(Double.isNaN(minTflops) ? CheckResult.info("3 cuBLAS", item, value)
                    : CheckResult.judged("3 cuBLAS", item, value, ">= " + (int) minTflops, tflops >= minTflops));
        }
    }

    private void nccl() {
        Nccl nccl = Nccl.get();
        int count = 1 << 20;
        float[] x = HostReference.randomFloats(count, 5);
        try (NcclComm comm = nccl.initRank(nccl.newUniqueId(), 1, 0);
             DeviceBuffer send = device.allocate(4L * count); DeviceBuffer recv = device.allocate(4L * count)) {
            send.copyFrom(x);
            recv.fill32Async(0x7fc00000, count, stream);
            comm.allReduce(send.address(), recv.address(), count, NcclDataType.FLOAT32, NcclRedOp.SUM, stream);
            stream.synchronize();
            float[] out = new float[count];
            recv.copyTo(out);
            boolean same = Arrays.equals(out, x);
            rows.add(CheckResult.judged("5 NCCL", "1-rank all-reduce SUM of 1M fp32 (random)", same
                    ? "result = input" : "result differs from input", "bit-identical", same));
            rows.add(CheckResult.info("5 NCCL", "async error after all-reduce", comm.asyncError().orElse("none")));
        }
    }

    private void memory() {
        device.synchronize();
        device.allocator().emptyCache();
        long before = used();
        MemoryStats s0 = device.memoryStats();
        long[] sizes = {100L << 20, (300L << 20) + 123, 7L << 20};
        List<DeviceBuffer> bufs = new ArrayList<>();
        for (long sz : sizes) {
            bufs.add(device.allocate(sz));
        }
        long afterAlloc = used();
        MemoryStats s1 = device.memoryStats();
        long driverDelta = afterAlloc - before;
        long reservedDelta = s1.reservedBytes() - s0.reservedBytes();
        long slack = sizes.length * (2L << 20); // the driver maps device memory in 2 MiB pages
        rows.add(CheckResult.judged("6 memory", "after allocating 3 buffers: driver used delta vs reserved delta",
                mib(driverDelta) + " vs " + mib(reservedDelta) + " (allocated " + mib(s1.allocatedBytes() - s0.allocatedBytes()) + ")",
                "within " + mib(slack), driverDelta >= reservedDelta && driverDelta - reservedDelta <= slack));
        bufs.forEach(DeviceBuffer::close);
        MemoryStats s2 = device.memoryStats();
        long afterFree = used();
        rows.add(CheckResult.judged("6 memory", "after free: allocated / reserved / driver delta",
                mib(s2.allocatedBytes() - s0.allocatedBytes()) + " / " + mib(s2.reservedBytes() - s0.reservedBytes())
                        + " / " + mib(afterFree - before), "0 / cached / unchanged",
                s2.allocatedBytes() == s0.allocatedBytes() && afterFree == afterAlloc));
        device.allocator().emptyCache();
        long afterEmpty = used();
        MemoryStats s3 = device.memoryStats();
        rows.add(CheckResult.judged("6 memory", "after emptyCache: reserved / driver delta",
                mib(s3.reservedBytes() - s0.reservedBytes()) + " / " + mib(afterEmpty - before), "0 / 0",
                s3.reservedBytes() == s0.reservedBytes() && afterEmpty == before));
        rows.add(CheckResult.info("6 memory", "peak allocated / peak reserved (whole check)",
                mib(s3.peakAllocatedBytes()) + " / " + mib(s3.peakReservedBytes())));
    }

    private long used() {
        long[] info = device.driverMemoryInfo();
        return info[1] - info[0];
    }

    private static String mib(long bytes) {
        return String.format("%.2f MiB", bytes / 1048576.0);
    }

    /** Prints the table: one row per result, then the counts. Returns true when nothing failed. */
    public static boolean printTable(List<CheckResult> rows, PrintStream out) {
        int w1 = 4;
        int w2 = 4;
        for (CheckResult r : rows) {
            w1 = Math.max(w1, r.step().length());
            w2 = Math.max(w2, r.item().length());
        }
        String fmt = "%-" + w1 + "s  %-" + w2 + "s  %-5s  %s%s%n";
        out.printf(fmt, "step", "item", "", "value", "");
        long failed = 0;
        for (CheckResult r : rows) {
            out.printf(fmt, r.step(), r.item(), r.status(), r.value(),
                    r.criterion().isEmpty() ? "" : "   [" + r.criterion() + "]");
            if (r.status() == Status.FAIL) {
                failed++;
            }
        }
        long passed = rows.stream().filter(r -> r.status() == Status.PASS).count();
        out.printf("%d passed, %d failed%n", passed, failed);
        return failed == 0;
    }
}
