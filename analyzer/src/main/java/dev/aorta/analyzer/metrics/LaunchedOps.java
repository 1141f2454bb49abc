package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.analyzer.read.OpArguments;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.CollectiveBandwidth;
import dev.aorta.core.metric.GemmThroughput;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the op behind a device activity was, read from the arguments of its launch call ({@link OpArguments}): the
 * collective (kind, nccl-tests' message size S, group size) and the GEMM shape, the inputs of
 * {@link CollectiveBandwidth} and {@link GemmThroughput}.
 */
final class LaunchedOps {
    private LaunchedOps() {
    }

    /**
     * A communication activity as a collective call. Its kind, S and group size come from its launch call when the
     * trace recorded them (PyTorch's {@code record_param_comms}, the agent's NCCL call), else the kind from the
     * kernel's name ({@code ncclKernel_AllReduce_…}) and the bytes from the record (0: unknown). A group size the
     * trace does not give is the rank's declared world size, when it declares one.
     */
    static CollectiveBandwidth.Call collective(RankTimeline t, DeviceActivity a, ApiCall c) {
        Map<String, Object> args = c == null ? Map.of() : c.args();
        int n = args.get(OpArguments.GROUP_SIZE) instanceof Number g ? g.intValue()
                : t.worldSize() > 0 ? t.worldSize() : CollectiveBandwidth.UNKNOWN;
        CollectiveBandwidth.Kind kind = OpArguments.collectiveKind(args);
        if (kind == null) {
            return new CollectiveBandwidth.Call(CollectiveBandwidth.Kind.of(a.name()),
                    a.bytes() > 0 ? a.bytes() : CollectiveBandwidth.UNKNOWN, n, a.durationNs());
        }
        long s = CollectiveBandwidth.UNKNOWN;
        if (args.get(OpArguments.IN_BYTES) instanceof Number in && args.get(OpArguments.OUT_BYTES) instanceof Number out) {
            s = Math.max(in.longValue(), out.longValue());
        } else if (args.get("bytes") instanceof Number bytes) {
            // the agent records NCCL's count: all-gather's per-rank send, reduce-scatter's per-rank receive buffer
            boolean perRank = kind == CollectiveBandwidth.Kind.ALL_GATHER || kind == CollectiveBandwidth.Kind.REDUCE_SCATTER;
            s = !perRank ? bytes.longValue() : n > 0 ? bytes.longValue() * n : CollectiveBandwidth.UNKNOWN;
        }
        return new CollectiveBandwidth.Call(kind, s, n, a.durationNs());
    }

    /**
     * The GEMM ops among {@code activities}: those whose launch call carries a shape, one op per op id (PyTorch's
     * External id: addmm's bias copy and GEMM kernel are one op) or, without one, per call; its device time is the
     * summed duration of its activities.
     */
    static List<GemmThroughput.Op> gemms(List<DeviceActivity> activities, CallsByCorrelation calls) {
        Map<Long, GemmThroughput.Shape> shapes = new LinkedHashMap<>();
        Map<Long, long[]> deviceNs = new LinkedHashMap<>();
        for (DeviceActivity a : activities) {
            ApiCall c = a.correlationId() == 0 ? null : calls.get(a.correlationId());
            GemmThroughput.Shape shape = c == null ? null : shape(c.args());
            if (shape == null) {
                continue;
            }
            long op = c.args().get(OpArguments.OP_ID) instanceof Number id ? id.longValue() : c.correlationId();
            shapes.putIfAbsent(op, shape);
            deviceNs.computeIfAbsent(op, x -> new long[1])[0] += a.durationNs();
        }
        List<GemmThroughput.Op> out = new ArrayList<>();
        shapes.forEach((op, shape) -> out.add(new GemmThroughput.Op(shape, deviceNs.get(op)[0])));
        return out;
    }

    private static GemmThroughput.Shape shape(Map<String, Object> args) {
        if (!(args.get(OpArguments.M) instanceof Number m) || !(args.get(OpArguments.N) instanceof Number n)
                || !(args.get(OpArguments.K) instanceof Number k)) {
            return null;
        }
        long batch = args.get(OpArguments.BATCH) instanceof Number b ? b.longValue() : 1;
        if (m.longValue() <= 0 || n.longValue() <= 0 || k.longValue() <= 0 || batch <= 0) {
            return null;
        }
        return new GemmThroughput.Shape(m.longValue(), n.longValue(), k.longValue(), batch,
                args.get(OpArguments.DTYPE) instanceof String d ? d : "");
    }
}
