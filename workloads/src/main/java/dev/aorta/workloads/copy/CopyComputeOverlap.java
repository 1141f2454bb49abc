package dev.aorta.workloads.copy;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.workloads.session.GemmSpec;
import dev.aorta.workloads.session.GpuBuffer;
import dev.aorta.workloads.session.GpuEvent;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuStream;
import dev.aorta.workloads.session.GpuTelemetry;
import dev.aorta.workloads.session.HostBuffer;
import dev.aorta.workloads.spi.Op;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.RandomValues;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.Workload;
import dev.aorta.workloads.spi.WorkloadContext;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongToIntFunction;

/**
 * The copy/compute overlap probe (AORTA's SDMA prototype): GEMMs on the compute stream (stream 0) while copies run on
 * a copy stream (stream 1) at the device's highest priority, each copy direction twice per iteration: sequential
 * (the copy starts on the device when the GEMM has ended) and overlapped (both start together). Every phase is
 * timed from the device records of its GEMM and its copy, so the savings are device time, not the host waits
 * AORTA's sequential variant includes; its copies come from pinned memory, so they can run on the copy engines.
 * The check reads back three runs of {@link #CHECKED_WORDS} words (start, middle, end) of every buffer a copy wrote
 * and compares them bit for bit with what the copies in their order must have left there (AORTA checks nothing).
 */
public final class CopyComputeOverlap implements Workload {
    public static final String NAME = "copy_compute_overlap";

    /** A copy direction, named as CUPTI names its copies. */
    enum Direction {
        H2D("h2d", "Memcpy HtoD"), D2H("d2h", "Memcpy DtoH"), D2D("d2d", "Memcpy DtoD");

        final String label;
        final String activityName;

        Direction(String label, String activityName) {
            this.label = label;
            this.activityName = activityName;
        }
    }

    /** Words compared in each of the three runs of a buffer. */
    static final int CHECKED_WORDS = 1024;
    private static final int DEVICE_SEED = 11;
    private static final int HOST_SEED = 13;
    private final List<Direction> directions = new ArrayList<>();
    private final List<Op> copies = new ArrayList<>();
    private Op gemm;
    private GpuStream compute;
    private GpuStream copy;
    private GpuEvent computeMark;
    private GpuEvent copyMark;
    private HostBuffer host;
    private GpuBuffer device;
    private GpuBuffer deviceCopy;
    private GpuSession gpu;
    private long bytes;
    private GemmSpec spec;
    private int copyEngines;
    private GpuTelemetry link;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "GEMMs on a compute stream with host<->device and device<->device copies on a high-priority stream, "
                + "sequential and overlapped: device-timed savings and copy bandwidth against the link's limit";
    }

    @Override
    public String category() {
        return "copy";
    }

    @Override
    public Priority priority() {
        return Priority.UNTIERED;
    }

    @Override
    public StreamRange streamRange() {
        return new StreamRange(2, 2);
    }

    @Override
    public int recommendedStreams() {
        return 2;
    }

    @Override
    public SwitchLatencySensitivity switchLatencySensitivity() {
        return SwitchLatencySensitivity.MEDIUM;
    }

    @Override
    public List<WorkloadParameter> parameters() {
        return List.of(WorkloadParameter.positive("copy_mib", "64", "bytes of each copy, MiB (AORTA: 64)"),
                WorkloadParameter.positive("matrix", "4096", "m = n = k of the GEMM (AORTA: 4096)"),
                WorkloadParameter.choice("directions", "all", "the copy directions measured", "all", "h2d", "d2h",
                        "d2d"));
    }

    @Override
    public boolean usesDtype() {
        return true;
    }

    @Override
    public String streamRole(int streamIndex, int streamCount) {
        return streamIndex == 0 ? "compute" : "copy";
    }

    /** AORTA gives its copy stream priority -1 over the compute stream's 0. */
    @Override
    public boolean urgentStream(int streamIndex, int streamCount) {
        return streamIndex == 1;
    }

    @Override
    public void setup(WorkloadContext ctx) {
        gpu = ctx.gpu();
        compute = ctx.streams().get(0);
        copy = ctx.streams().get(1);
        bytes = (long) ctx.intParameter("copy_mib") << 20;
        spec = GemmSpec.square(ctx.dtype(), ctx.intParameter("matrix"));
        String which = ctx.choiceParameter("directions");
        for (Direction d : Direction.values()) {
            if (which.equals("all") || which.equals(d.label)) {
                directions.add(d);
            }
        }
        gemm = ctx.gemm("gemm " + spec.describe(), spec, compute, 7);
        device = ctx.randomBuffer(bytes / 4, dev.aorta.workloads.session.DType.FP32, DEVICE_SEED);
        deviceCopy = ctx.allocate(bytes);
        host = gpu.allocatePinned(bytes);
        writeHostPattern();
        for (Direction d : directions) {
            copies.add(switch (d) {
                case H2D -> ctx.enqueueOp(d.activityName, copy, () -> gpu.copyHostToDevice(device, host, bytes, copy));
                case D2H -> ctx.enqueueOp(d.activityName, copy, () -> gpu.copyDeviceToHost(host, device, bytes, copy));
                case D2D -> ctx.enqueueOp(d.activityName, copy, () -> gpu.copyDeviceToDevice(deviceCopy, device, bytes, copy));
            });
        }
        computeMark = gpu.createEvent();
        copyMark = gpu.createEvent();
        copyEngines = gpu.deviceInfo().asyncEngines();
        link = gpu.telemetry();
    }

    /** The host buffer's own values, so that what a copy from it carries can be told from what was there. */
    private void writeHostPattern() {
        int chunk = 1 << 20;
        for (long first = 0; first < bytes / 4; first += chunk) {
            int[] words = new int[(int) Math.min(chunk, bytes / 4 - first)];
            for (int i = 0; i < words.length; i++) {
                words[i] = Float.floatToRawIntBits(RandomValues.uniform(first + i, HOST_SEED));
            }
            gpu.writeHost(host, 4 * first, words);
        }
    }

    @Override
    public boolean hasCorrectnessCheck() {
        return true;
    }

    /**
     * Each iteration copies in this order: host to device, device to host, device to device. With h2d the device
     * buffer holds the host's values, else its fill; the host keeps its values unless d2h alone brought the fill back;
     * the device copy holds the device buffer's.
     */
    @Override
    public Optional<String> correctnessProblem() {
        boolean h2d = directions.contains(Direction.H2D);
        boolean d2h = directions.contains(Direction.D2H);
        LongToIntFunction hostValues = i -> Float.floatToRawIntBits(RandomValues.uniform(i, HOST_SEED));
        LongToIntFunction fill = i -> Float.floatToRawIntBits(RandomValues.uniform(i, DEVICE_SEED));
        LongToIntFunction onDevice = h2d ? hostValues : fill;
        Optional<String> problem = compare("device buffer", (offset, n) -> gpu.readInts(device, offset, n), onDevice)
                .or(() -> compare("pinned host buffer", (offset, n) -> gpu.readHost(host, offset, n),
                        h2d || !d2h ? hostValues : fill));
        if (problem.isEmpty() && directions.contains(Direction.D2D)) {
            problem = compare("device copy", (offset, n) -> gpu.readInts(deviceCopy, offset, n), onDevice);
        }
        return problem;
    }

    private Optional<String> compare(String what, ReadWords read, LongToIntFunction expected) {
        long words = bytes / 4;
        int n = (int) Math.min(CHECKED_WORDS, words);
        for (long first : new long[] {0, (words - n) / 2, words - n}) {
            int[] got = read.words(4 * first, n);
            for (int k = 0; k < n; k++) {
                if (got[k] != expected.applyAsInt(first + k)) {
                    return Optional.of(String.format(Locale.ROOT, "copy_compute_overlap: word %d of the %s is %08x, "
                            + "expected %08x from the copies %s", first + k, what, got[k],
                            expected.applyAsInt(first + k), directions));
                }
            }
        }
        return Optional.empty();
    }

    /** Reads {@code count} words from a byte offset of one buffer. */
    private interface ReadWords {
        int[] words(long byteOffset, int count);
    }

    /** Per direction: sequential (copy after the GEMM, on the device), then overlapped; phases never overlap. */
    @Override
    public void runIteration(int iteration) {
        for (Op c : copies) {
            align();
            gemm.run();
            computeMark.record(compute);
            copy.waitEvent(computeMark);
            c.run();
            align();
            gemm.run();
            c.run();
        }
        align();
    }

    /** Both streams wait for each other: what follows starts after everything before on either. */
    private void align() {
        computeMark.record(compute);
        copyMark.record(copy);
        compute.waitEvent(copyMark);
        copy.waitEvent(computeMark);
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput(2.0 * bytes * copies.size() * iterations / (totalTimeMs / 1e3) / 1e9, "GB/s copied");
    }

    @Override
    public Map<String, Object> results(List<List<DeviceActivity>> iterations, List<Long> streamIds) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("copy_engines", copyEngines);
        out.put("copy_bytes", bytes);
        out.put("gemm", spec.describe());
        List<List<DeviceActivity>> phases = phases(iterations);
        int perIteration = 2 * directions.size();
        if (phases.isEmpty() || phases.size() % perIteration != 0) {
            out.put("unavailable", "needs the device records of every copy (CUPTI); got " + phases.size()
                    + " copy phases, expected a multiple of " + perIteration);
            return out;
        }
        for (int d = 0; d < directions.size(); d++) {
            PhaseTimes sequential = new PhaseTimes();
            PhaseTimes overlapped = new PhaseTimes();
            for (int k = 2 * d; k < phases.size(); k += perIteration) {
                sequential.add(phases.get(k));
                overlapped.add(phases.get(k + 1));
            }
            out.put(directions.get(d).label, direction(directions.get(d), sequential, overlapped));
        }
        return out;
    }

    /** The measured records in issue order, cut after each copy: one phase = its GEMM's kernels and its copy. */
    private static List<List<DeviceActivity>> phases(List<List<DeviceActivity>> iterations) {
        List<DeviceActivity> all = new ArrayList<>(iterations.stream().flatMap(List::stream).toList());
        all.sort(Comparator.comparingLong(DeviceActivity::correlationId));
        List<List<DeviceActivity>> phases = new ArrayList<>();
        List<DeviceActivity> current = new ArrayList<>();
        for (DeviceActivity a : all) {
            current.add(a);
            if (a.kind() == ActivityKind.MEMCPY) {
                phases.add(current);
                current = new ArrayList<>();
            }
        }
        return phases;
    }

    /** Sums over the measured iterations of one phase kind of one direction. */
    private static final class PhaseTimes {
        long spanNs;
        long gemmNs;
        long copyNs;
        int count;

        void add(List<DeviceActivity> phase) {
            long start = Long.MAX_VALUE;
            long end = Long.MIN_VALUE;
            for (DeviceActivity a : phase) {
                start = Math.min(start, a.startNs());
                end = Math.max(end, a.endNs());
                if (a.kind() == ActivityKind.MEMCPY) {
                    copyNs += a.durationNs();
                } else {
                    gemmNs += a.durationNs();
                }
            }
            spanNs += end - start;
            count++;
        }

        double ms(long ns) {
            return ns / 1e6 / count;
        }
    }

    private Map<String, Object> direction(Direction d, PhaseTimes sequential, PhaseTimes overlapped) {
        Map<String, Object> m = new LinkedHashMap<>();
        double seq = sequential.ms(sequential.spanNs);
        double ovl = overlapped.ms(overlapped.spanNs);
        double gemmMs = sequential.ms(sequential.gemmNs);
        double copyMs = sequential.ms(sequential.copyNs);
        m.put("sequential_ms", seq);
        m.put("overlapped_ms", ovl);
        m.put("savings_pct", 100 * (seq - ovl) / seq);
        // the most overlap can save is the shorter of the two: how much of it was hidden
        m.put("hidden_pct_of_shorter", 100 * (seq - ovl) / Math.min(gemmMs, copyMs));
        m.put("gemm_ms", gemmMs);
        m.put("gemm_ms_overlapped", overlapped.ms(overlapped.gemmNs));
        m.put("copy_ms", copyMs);
        m.put("copy_ms_overlapped", overlapped.ms(overlapped.copyNs));
        double gbps = bytes / (copyMs * 1e6);
        m.put("copy_gbps", gbps);
        m.put("copy_gbps_overlapped", bytes / (overlapped.ms(overlapped.copyNs) * 1e6));
        Double limit = d == Direction.D2D
                ? (link.memoryLimitGBps() == null ? null : link.memoryLimitGBps() / 2)
                : link.pcieLimitGBps();
        m.put("limit_gbps", limit);
        m.put("limit_source", limit == null ? (link.available() ? "NVML gave no link figures" : link.unavailable())
                : d == Direction.D2D ? "NVML memory bus x max memory clock x 2 / 2 (a copy reads and writes)"
                : "NVML PCIe gen " + link.value("pcie_max_generation") + " x" + link.value("pcie_max_width")
                + (link.value("active_nvlinks") != null && link.value("active_nvlinks").intValue() > 0
                ? " (the device also has " + link.value("active_nvlinks") + " NVLinks, to peers)" : ""));
        m.put("pct_of_limit", limit == null ? null : 100 * gbps / limit);
        return m;
    }

    @Override
    public void cleanup() {
        gemm = null;
        copies.clear();
        directions.clear();
        if (computeMark != null) {
            computeMark.close();
            copyMark.close();
            computeMark = null;
            copyMark = null;
        }
        if (host != null) {
            host.close();
            host = null;
        }
        device = null;
        deviceCopy = null;
    }
}
