package dev.aorta.workloads.session;

import java.util.Arrays;
import java.util.Locale;

/** Element type of GEMM operands, and for {@link #TF32} the tensor-core compute mode on fp32 storage. */
public enum DType {
    FP32(4), TF32(4), BF16(2), FP16(2);

    private final int bytes;

    DType(int bytes) {
        this.bytes = bytes;
    }

    /** Bytes per stored element. */
    public int bytes() {
        return bytes;
    }

    /** Lower-case name used on the command line and in result files. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses fp32/tf32/bf16/fp16 (any case); the error lists the accepted names. */
    public static DType parse(String text) {
        for (DType d : values()) {
            if (d.label().equalsIgnoreCase(text.trim())) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown dtype '" + text + "'; expected one of "
                + Arrays.stream(values()).map(DType::label).toList());
    }
}
