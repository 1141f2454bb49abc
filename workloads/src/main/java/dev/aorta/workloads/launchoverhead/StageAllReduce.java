package dev.aorta.workloads.launchoverhead;

import dev.aorta.workloads.session.CommDType;
import dev.aorta.workloads.session.Communicator;
import dev.aorta.workloads.session.GpuBuffer;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuStream;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The collective work of all_reduce and combined on one rank, on its own stream like PyTorch's NCCL stream:
 * per stage the seed all-reduces a K-element fp32 buffer (the centroid counts) and a K x D one (the centroid
 * sums). The send buffers hold rank-dependent values written once, the sums land in separate receive buffers
 * (sustained: the same sums every step, so they never overflow), and {@link #check()} compares every received
 * element with the sum over the ranks. Also gathers small per-rank tables to every rank.
 */
public final class StageAllReduce implements AutoCloseable {
    private final GpuSession gpu;
    private final Communicator communicator;
    private final int centroids;
    private final int centroidValues;
    private final GpuStream stream;
    private final List<GpuBuffer> buffers = new ArrayList<>();
    private final GpuBuffer countsSend;
    private final GpuBuffer countsRecv;
    private final GpuBuffer sumsSend;
    private final GpuBuffer sumsRecv;
    private final LaunchCounters counters = new LaunchCounters();

    public StageAllReduce(GpuSession gpu, Communicator communicator, CodebookShape shape) {
        this.gpu = gpu;
        this.communicator = communicator;
        this.centroids = shape.centroids();
        this.centroidValues = Math.multiplyExact(shape.centroids(), shape.dim());
        this.stream = gpu.createStream(gpu.deviceInfo().priorityRange().least());
        try {
            countsSend = floats(centroids);
            countsRecv = floats(centroids);
            sumsSend = floats(centroidValues);
            sumsRecv = floats(centroidValues);
            gpu.writeFloats(countsSend, contribution(communicator.rank(), centroids));
            gpu.writeFloats(sumsSend, contribution(communicator.rank(), centroidValues));
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Rank r's element i: r + 1 + (i mod 7). Small integers, so fp32 sums over any order of ranks are exact,
     * and a sum that missed a rank, counted one twice or shifted elements is wrong.
     */
    static float[] contribution(int rank, int count) {
        float[] v = new float[count];
        for (int i = 0; i < count; i++) {
            v[i] = rank + 1 + i % 7;
        }
        return v;
    }

    /** The sum over {@code ranks} ranks of element i: ranks(ranks + 1)/2 + ranks (i mod 7). */
    static float expectedSum(int ranks, int i) {
        return ranks * (ranks + 1) / 2f + ranks * (i % 7);
    }

    public int rank() {
        return communicator.rank();
    }

    public int size() {
        return communicator.size();
    }

    LaunchCounters counters() {
        return counters;
    }

    /** One stage's collectives: the K-element counts, then the K x D sums; only enqueued. */
    void stage() {
        communicator.allReduce(countsSend, countsRecv, centroids, CommDType.FP32, stream);
        counters.collectiveIssued();
        communicator.allReduce(sumsSend, sumsRecv, centroidValues, CommDType.FP32, stream);
        counters.collectiveIssued();
    }

    /** Waits until this rank's collectives are done (one sync). */
    void finish() {
        stream.synchronize();
        counters.synced();
    }

    /** Whether the last all-reduces left every element equal to the sum over the ranks; empty when they did. */
    public Optional<String> check() {
        Optional<String> counts = check("K-element", countsRecv, centroids);
        return counts.isPresent() ? counts : check("K x D", sumsRecv, centroidValues);
    }

    private Optional<String> check(String name, GpuBuffer received, int count) {
        float[] got = gpu.readFloats(received, count);
        int wrong = 0;
        int first = -1;
        for (int i = 0; i < count; i++) {
            if (got[i] != expectedSum(size(), i)) {
                wrong++;
                if (first < 0) {
                    first = i;
                }
            }
        }
        if (wrong == 0) {
            return Optional.empty();
        }
        return Optional.of(String.format(Locale.ROOT, "rank %d: %d of %d elements of the %s all-reduce differ from the "
                        + "sum over %d ranks, first element %d = %s, %s expected", rank(), wrong, count, name, size(), first,
                got[first], expectedSum(size(), first)));
    }

    /**
     * Every rank's {@code mine} (the same length on every rank), by rank: one all-gather on this stream, then a
     * read. Outside the measured loops.
     */
    float[][] gather(float[] mine) {
        try (GpuBuffer send = gpu.allocate(4L * mine.length);
             GpuBuffer recv = gpu.allocate(4L * mine.length * size())) {
            gpu.writeFloats(send, mine);
            communicator.allGather(send, recv, mine.length, CommDType.FP32, stream);
            stream.synchronize();
            float[] all = gpu.readFloats(recv, mine.length * size());
            float[][] byRank = new float[size()][];
            for (int r = 0; r < byRank.length; r++) {
                byRank[r] = java.util.Arrays.copyOfRange(all, r * mine.length, (r + 1) * mine.length);
            }
            return byRank;
        }
    }

    private GpuBuffer floats(long count) {
        GpuBuffer b = gpu.allocate(4 * count);
        buffers.add(b);
        return b;
    }

    @Override
    public void close() {
        buffers.forEach(GpuBuffer::close);
        stream.close();
    }
}
