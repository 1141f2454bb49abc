package dev.aorta.workloads.comm;

import dev.aorta.workloads.session.CommDType;
import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.GemmSpec;

import java.util.Locale;

/**
 * The options of comms_compute_overlap (AORTA's defaults: mm 2048³, 10 GEMMs per compute stream, 128 MiB
 * all-reduce, stream 0 = communication).
 *
 * @param gemm           the shape and type of every GEMM
 * @param gemmsPerStream GEMMs each compute stream issues per iteration ({@code --num-compute})
 * @param commBytes      the collective's size S in bytes, nccl-tests' convention ({@link Collective})
 * @param collectives    collectives per iteration ({@code --num-coll})
 * @param real           NCCL collectives; false: a device copy of S bytes on stream 0 stands in for them
 * @param asyncOp        true: collectives are only enqueued; false: the host waits for each one before going on
 */
public record OverlapConfig(OverlapMode mode, GemmSpec gemm, int gemmsPerStream, int computeStreams,
                            long commBytes, int collectives, CommDType commDtype, Collective collective,
                            boolean real, boolean asyncOp) {
    public OverlapConfig {
        if (gemmsPerStream < 1) {
            throw new IllegalArgumentException("--num-compute must be 1 or more, got " + gemmsPerStream);
        }
        if (computeStreams < 1) {
            throw new IllegalArgumentException("--compute-streams must be 1 or more, got " + computeStreams);
        }
        if (collectives < 1) {
            throw new IllegalArgumentException("--num-coll must be 1 or more, got " + collectives);
        }
    }

    public OverlapConfig withMode(OverlapMode m) {
        return new OverlapConfig(m, gemm, gemmsPerStream, computeStreams, commBytes, collectives, commDtype,
                collective, real, asyncOp);
    }

    /** {@code --mm-dim}: {@code M,N,K} or one value for all three. */
    public static GemmSpec parseMmDim(String text, DType dtype) {
        String[] parts = text.split(",", -1);
        if (parts.length != 1 && parts.length != 3) {
            throw new IllegalArgumentException("--mm-dim '" + text + "': expected M,N,K or one value for all three");
        }
        int[] d = new int[3];
        for (int i = 0; i < 3; i++) {
            String p = parts[parts.length == 1 ? 0 : i].trim();
            try {
                d[i] = Integer.parseInt(p);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--mm-dim '" + text + "': '" + p + "' is not an integer");
            }
            if (d[i] < 1) {
                throw new IllegalArgumentException("--mm-dim '" + text + "': dimensions must be positive");
            }
        }
        return new GemmSpec(dtype, d[0], d[1], d[2], 1);
    }

    /** {@code --comm-size}: bytes, with an optional K, M or G suffix (powers of 1024; "KiB", "MB"... read alike). */
    public static long parseSize(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        String digits = t.replaceFirst("(?:([KMG])(?:I?B)?|B)$", "");
        long unit = 1;
        if (!digits.equals(t)) {
            char c = t.charAt(digits.length());
            unit = switch (c) {
                case 'K' -> 1L << 10;
                case 'M' -> 1L << 20;
                case 'G' -> 1L << 30;
                default -> 1;
            };
        }
        long value;
        try {
            value = Long.parseLong(digits.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--comm-size '" + text + "': expected a byte count with an optional "
                    + "K, M or G suffix (powers of 1024), like 128M");
        }
        if (value <= 0 || value > Long.MAX_VALUE / unit) {
            throw new IllegalArgumentException("--comm-size '" + text + "' must be a positive size");
        }
        return value * unit;
    }

    /** Floating-point operations of one iteration's GEMMs. */
    public double flopsPerIteration() {
        return gemm.flops() * gemmsPerStream * computeStreams;
    }

    public static String bytesText(long b) {
        if (b % (1L << 30) == 0) {
            return (b >> 30) + " GiB";
        }
        if (b % (1L << 20) == 0) {
            return (b >> 20) + " MiB";
        }
        if (b % (1L << 10) == 0) {
            return (b >> 10) + " KiB";
        }
        return b + " B";
    }
}
