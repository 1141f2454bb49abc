package dev.aorta.gpu.nccl;

/** Test double of the aorta-gpu enum: ordinals are NCCL's codes, as in the real one. */
public enum NcclDataType {
    INT8, UINT8, INT32, UINT32, INT64, UINT64, FLOAT16, FLOAT32, FLOAT64, BFLOAT16
}
