package dev.aorta.analyzer.read;

import dev.aorta.core.metric.CollectiveBandwidth;
import dev.aorta.core.metric.GemmThroughput;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The argument names under which a launch call carries what the op that made it was (a collective, a GEMM), so that
 * the metrics can read it from any trace format. The agent's own collective and GEMM calls use the same names
 * ({@code collective}, {@code count}, {@code dtype}, {@code bytes}; {@code m}, {@code n}, {@code k}); a PyTorch trace's
 * ops are translated here: {@code record_param_comms}'s NCCL metadata, and the shapes of the ATen GEMM ops.
 */
public final class OpArguments {
    /** The collective's name as the trace gives it ({@code allreduce}, {@code allReduce}, {@code _allgather_base}). */
    public static final String COLLECTIVE = "collective";
    /** Bytes of the collective's input / output buffer on this rank (PyTorch's {@code In/Out msg nelems} × element size). */
    public static final String IN_BYTES = "in_bytes";
    public static final String OUT_BYTES = "out_bytes";
    /** The ranks in the collective's communicator. */
    public static final String GROUP_SIZE = "group_size";
    public static final String PROCESS_GROUP = "process_group";
    /** Element type, as the trace names it ({@code Float}, {@code float32}). */
    public static final String DTYPE = "dtype";
    /** The op that made the call (PyTorch's External id): the kernels of one op share it. */
    public static final String OP_ID = "op_id";
    /** The op's name ({@code aten::addmm}). */
    public static final String OP = "op";
    public static final String M = "m";
    public static final String N = "n";
    public static final String K = "k";
    public static final String BATCH = "batch";

    /** Bytes per element of PyTorch's scalar types, by the names its profiler writes. */
    private static final Map<String, Integer> ELEMENT_BYTES = Map.ofEntries(
            Map.entry("double", 8), Map.entry("float", 4), Map.entry("half", 2), Map.entry("bfloat16", 2),
            Map.entry("long", 8), Map.entry("int", 4), Map.entry("short", 2), Map.entry("char", 1),
            Map.entry("byte", 1), Map.entry("bool", 1), Map.entry("complexfloat", 8), Map.entry("complexdouble", 16),
            Map.entry("complexhalf", 4), Map.entry("float8_e4m3fn", 1), Map.entry("float8_e5m2", 1),
            Map.entry("float8_e4m3fnuz", 1), Map.entry("float8_e5m2fnuz", 1), Map.entry("uint16", 2),
            Map.entry("uint32", 4), Map.entry("uint64", 8));

    private OpArguments() {
    }

    /** Bytes per element of a PyTorch dtype name ({@code Float}, {@code BFloat16}), or -1 when not known. */
    public static int elementBytes(String dtype) {
        return dtype == null ? -1 : ELEMENT_BYTES.getOrDefault(dtype.toLowerCase(Locale.ROOT), -1);
    }

    /**
     * The arguments a PyTorch op gives the calls it made, or null when it is neither a collective nor a GEMM whose
     * shape was recorded.
     */
    static Map<String, Object> of(String op, String collective, long inElements, long outElements, int groupSize,
                                  String dtype, String processGroup, long[][] inputDims, List<String> inputTypes,
                                  long externalId) {
        Map<String, Object> a = new HashMap<>();
        if (collective != null && !collective.isEmpty()) {
            a.put(COLLECTIVE, collective);
            int size = elementBytes(dtype);
            if (size > 0 && inElements >= 0 && outElements >= 0) {
                a.put(IN_BYTES, inElements * size);
                a.put(OUT_BYTES, outElements * size);
            }
            if (groupSize > 0) {
                a.put(GROUP_SIZE, groupSize);
            }
            if (dtype != null) {
                a.put(DTYPE, dtype);
            }
            if (processGroup != null) {
                a.put(PROCESS_GROUP, processGroup);
            }
        } else {
            GemmThroughput.Shape shape = gemmShape(op, inputDims, inputTypes);
            if (shape == null) {
                return null;
            }
            a.put(M, shape.m());
            a.put(N, shape.n());
            a.put(K, shape.k());
            a.put(BATCH, shape.batch());
            if (!shape.dtype().isEmpty()) {
                a.put(DTYPE, shape.dtype());
            }
        }
        if (op != null) {
            a.put(OP, op);
        }
        a.put(OP_ID, externalId);
        return Map.copyOf(a);
    }

    /**
     * The GEMM an ATen op computes from its inputs' dimensions, or null when the op is not one or its shapes are not
     * recorded: {@code mm} A[M,K]·B[K,N]; {@code addmm} bias, A, B; {@code bmm} A[b,M,K]·B[b,K,N]; {@code baddbmm} bias,
     * A, B; {@code matmul} A[…,M,K]·B[…,K,N] with the leading dimensions broadcast into the batch (a 1-D A is one row,
     * a 1-D B one column); {@code linear} input[…,K]·weightᵀ with weight [N,K], every leading input dimension a row.
     * The element type is that of A.
     */
    public static GemmThroughput.Shape gemmShape(String op, long[][] dims, List<String> types) {
        if (op == null || dims == null) {
            return null;
        }
        int a = switch (op) {
            case "aten::mm", "aten::bmm", "aten::matmul", "aten::linear" -> 0;
            case "aten::addmm", "aten::baddbmm" -> 1;
            default -> -1;
        };
        if (a < 0 || dims.length < a + 2 || dims[a] == null || dims[a + 1] == null) {
            return null;
        }
        long[] x = dims[a];
        long[] y = dims[a + 1];
        String dtype = types != null && types.size() > a && types.get(a) != null ? types.get(a) : "";
        try {
            return switch (op) {
                case "aten::mm", "aten::addmm" -> x.length == 2 && y.length == 2 && x[1] == y[0]
                        ? new GemmThroughput.Shape(x[0], y[1], x[1], 1, dtype) : null;
                case "aten::bmm", "aten::baddbmm" -> x.length == 3 && y.length == 3 && x[0] == y[0] && x[2] == y[1]
                        ? new GemmThroughput.Shape(x[1], y[2], x[2], x[0], dtype) : null;
                case "aten::linear" -> linear(x, y, dtype);
                default -> matmul(x, y, dtype);
            };
        } catch (IllegalArgumentException notPositive) {
            return null;  // an empty tensor does no GEMM
        }
    }

    private static GemmThroughput.Shape linear(long[] input, long[] weight, String dtype) {
        if (input.length < 1 || weight.length != 2 || input[input.length - 1] != weight[1]) {
            return null;
        }
        long rows = 1;
        for (int i = 0; i < input.length - 1; i++) {
            rows *= input[i];
        }
        return new GemmThroughput.Shape(rows, weight[0], weight[1], 1, dtype);
    }

    private static GemmThroughput.Shape matmul(long[] x, long[] y, String dtype) {
        if (x.length == 0 || y.length == 0) {
            return null;
        }
        long m = x.length == 1 ? 1 : x[x.length - 2];
        long k = x[x.length - 1];
        long n = y.length == 1 ? 1 : y[y.length - 1];
        long ky = y.length == 1 ? y[0] : y[y.length - 2];
        if (k != ky) {
            return null;
        }
        long batch = 1;
        int lead = Math.max(x.length, y.length) - 2;
        for (int i = 1; i <= lead; i++) {
            long dx = x.length - 2 - i >= 0 ? x[x.length - 2 - i] : 1;
            long dy = y.length - 2 - i >= 0 ? y[y.length - 2 - i] : 1;
            batch *= Math.max(dx, dy);
        }
        return new GemmThroughput.Shape(m, n, k, batch, dtype);
    }

    /** The collective kind of a call's arguments, or null when the call made no collective. */
    public static CollectiveBandwidth.Kind collectiveKind(Map<String, Object> args) {
        return args.get(COLLECTIVE) instanceof String s ? CollectiveBandwidth.Kind.of(s) : null;
    }
}
