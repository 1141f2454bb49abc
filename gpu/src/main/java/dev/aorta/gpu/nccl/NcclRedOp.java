package dev.aorta.gpu.nccl;

/** ncclRedOp_t. */
public enum NcclRedOp {
    SUM(0), PROD(1), MAX(2), MIN(3), AVG(4);

    final int code;

    NcclRedOp(int code) {
        this.code = code;
    }
}
