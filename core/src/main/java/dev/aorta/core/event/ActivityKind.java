package dev.aorta.core.event;

/** What a device activity did. Memory traffic (MEMCPY, MEMSET) is never compute. */
public enum ActivityKind {
    KERNEL, MEMCPY, MEMSET, COLLECTIVE, OTHER
}
