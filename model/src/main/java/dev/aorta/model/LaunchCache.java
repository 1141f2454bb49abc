package dev.aorta.model;

import java.util.HashMap;
import java.util.Map;

/**
 * Prepared kernel launches by what fixes them: the kernel's file and name, grid, block, stream and parameter
 * count (the parameters' values are rewritten per launch). Looked up on every launch, so keyed by the names as
 * the callers give them (literals, whose hashes the strings cache) rather than by the loaded kernel: finding the
 * kernel first cost a concatenated "file:name" string, its hash and a second map look-up per launch
 * (LaunchLookupBenchmark measures both). Not thread-safe.
 */
final class LaunchCache<V> {
    private record Key(String file, String name, int gridX, int gridY, int block, long stream, int parameters) {
    }

    private final Map<Key, V> launches = new HashMap<>();

    /** The launch prepared for this shape, or null. */
    V get(String file, String name, int gridX, int gridY, int block, long stream, int parameters) {
        return launches.get(new Key(file, name, gridX, gridY, block, stream, parameters));
    }

    void put(String file, String name, int gridX, int gridY, int block, long stream, int parameters, V launch) {
        launches.put(new Key(file, name, gridX, gridY, block, stream, parameters), launch);
    }

    int size() {
        return launches.size();
    }

    void clear() {
        launches.clear();
    }
}
