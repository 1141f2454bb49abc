package dev.aorta.gpu.nccl;

/** Test double of the aorta-gpu enum: ordinals are NCCL's codes, as in the real one. */
public enum NcclRedOp {
    SUM, PROD, MAX, MIN, AVG
}
