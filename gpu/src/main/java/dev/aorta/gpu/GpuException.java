package dev.aorta.gpu;

/**
 * A GPU library call failed. The message names the call and gives the library's own error string,
 * e.g. {@code cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)}.
 */
public class GpuException extends RuntimeException {
    private final String call;
    private final int code;

    public GpuException(String call, int code, String libraryMessage) {
        super(call + " failed: " + libraryMessage + " (code " + code + ")");
        this.call = call;
        this.code = code;
    }

    public GpuException(String message, Throwable cause) {
        super(message, cause);
        this.call = "";
        this.code = 0;
    }

    /** The library function that failed. */
    public String call() {
        return call;
    }

    /** The library's return code. */
    public int code() {
        return code;
    }
}
