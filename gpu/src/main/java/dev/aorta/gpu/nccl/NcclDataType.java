package dev.aorta.gpu.nccl;

/** ncclDataType_t, with element sizes. */
public enum NcclDataType {
    INT8(0, 1), UINT8(1, 1), INT32(2, 4), UINT32(3, 4), INT64(4, 8), UINT64(5, 8), FLOAT16(6, 2), FLOAT32(7, 4),
    FLOAT64(8, 8), BFLOAT16(9, 2);

    final int code;
    private final int bytes;

    NcclDataType(int code, int bytes) {
        this.code = code;
        this.bytes = bytes;
    }

    public int bytes() {
        return bytes;
    }

    /** Parses "fp32"/"float32"/"float", "bf16"/"bfloat16", "fp16"/"float16"/"half", "fp64", "int32", ... */
    public static NcclDataType parse(String s) {
        return switch (s.toLowerCase(java.util.Locale.ROOT)) {
            case "fp32", "float32", "float" -> FLOAT32;
            case "bf16", "bfloat16" -> BFLOAT16;
            case "fp16", "float16", "half" -> FLOAT16;
            case "fp64", "float64", "double" -> FLOAT64;
            case "int8" -> INT8;
            case "uint8" -> UINT8;
            case "int32", "int" -> INT32;
            case "uint32" -> UINT32;
            case "int64", "long" -> INT64;
            case "uint64" -> UINT64;
            default -> throw new IllegalArgumentException("unknown communication dtype '" + s
                    + "'; expected one of fp32, bf16, fp16, fp64, int8, uint8, int32, uint32, int64, uint64");
        };
    }
}
