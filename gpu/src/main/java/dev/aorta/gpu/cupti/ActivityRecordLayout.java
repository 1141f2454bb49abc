package dev.aorta.gpu.cupti;

/**
 * Byte offsets of the CUPTI activity records we read, for CUPTI 13 (CUPTI_API_VERSION 130001):
 * CUpti_ActivityKernel10, CUpti_ActivityMemcpy6, CUpti_ActivityMemset4 and CUpti_ActivityAPI.
 * Taken with offsetof() from cupti_activity.h of CUDA 13.0 (x86-64); a CUPTI that writes other record
 * versions is refused at start (see {@link CuptiTracer}).
 */
final class ActivityRecordLayout {
    static final int KIND = 0;

    static final int KIND_MEMCPY = 1;
    static final int KIND_MEMSET = 2;
    static final int KIND_KERNEL = 3;
    static final int KIND_DRIVER = 4;
    static final int KIND_RUNTIME = 5;
    static final int KIND_CONCURRENT_KERNEL = 10;

    static final long KERNEL_SIZE = 216;
    static final int KERNEL_START = 16, KERNEL_END = 24, KERNEL_DEVICE = 40, KERNEL_CONTEXT = 44, KERNEL_STREAM = 48,
            KERNEL_GRID_X = 52, KERNEL_BLOCK_X = 64, KERNEL_CORRELATION = 92, KERNEL_NAME = 104, KERNEL_QUEUED = 120,
            KERNEL_SUBMITTED = 128;

    static final long MEMCPY_SIZE = 48;
    static final int MEMCPY_COPY_KIND = 4, MEMCPY_BYTES = 8, MEMCPY_START = 16, MEMCPY_END = 24, MEMCPY_DEVICE = 32,
            MEMCPY_CONTEXT = 36, MEMCPY_STREAM = 40, MEMCPY_CORRELATION = 44;

    static final long MEMSET_SIZE = 48;
    static final int MEMSET_BYTES = 8, MEMSET_START = 16, MEMSET_END = 24, MEMSET_DEVICE = 32, MEMSET_CONTEXT = 36,
            MEMSET_STREAM = 40, MEMSET_CORRELATION = 44;

    static final long API_SIZE = 40;
    static final int API_CBID = 4, API_START = 8, API_END = 16, API_THREAD = 28, API_CORRELATION = 32,
            API_RETURN = 36;

    /** CUpti_ActivityMemcpyKind names, by value. */
    static final String[] COPY_KINDS = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD",
            "HtoH", "PtoP"};

    private ActivityRecordLayout() {
    }
}
