package dev.aorta.workloads.session;

import java.util.Arrays;
import java.util.Locale;

/** Element type of communication buffers; collectives reduce with a sum in this type. */
public enum CommDType {
    FP32(4), BF16(2), FP16(2);

    private final int bytes;

    CommDType(int bytes) {
        this.bytes = bytes;
    }

    public int bytes() {
        return bytes;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses fp32/bf16/fp16 and PyTorch's names float32/bfloat16/float16 (any case). */
    public static CommDType parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        for (CommDType d : values()) {
            if (d.label().equals(t)) {
                return d;
            }
        }
        return switch (t) {
            case "float32", "float" -> FP32;
            case "bfloat16" -> BF16;
            case "float16", "half" -> FP16;
            default -> throw new IllegalArgumentException("unknown communication dtype '" + text + "'; expected one of "
                    + Arrays.stream(values()).map(CommDType::label).toList());
        };
    }
}
