package dev.aorta.core.event;

/**
 * A stream as its creator described it.
 *
 * @param id       native handle (address) or the trace's stream id
 * @param priority CUDA stream priority (lower is more urgent), 0 when unknown
 * @param role     "compute", "comm", ... when known, else null
 */
public record StreamInfo(long id, int device, int priority, int flags, String role) {
}
