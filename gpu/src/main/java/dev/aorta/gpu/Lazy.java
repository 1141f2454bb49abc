package dev.aorta.gpu;

import java.util.function.Supplier;

/**
 * A value made on first use, once per process (a native library and its function handles). A factory that
 * throws leaves nothing behind, so the next use tries again and reports the problem again.
 */
public final class Lazy<T> implements Supplier<T> {
    private final Supplier<T> factory;
    private volatile T value;

    public Lazy(Supplier<T> factory) {
        this.factory = factory;
    }

    @Override
    public T get() {
        T v = value;
        if (v == null) {
            synchronized (this) {
                v = value;
                if (v == null) {
                    value = v = factory.get();
                }
            }
        }
        return v;
    }
}
