package dev.aorta.analyzer.columns;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/** A read-only view of a list in another order (a {@link dev.aorta.core.metric.StableOrder}), so that no sorted copy is held. */
public final class Reordered<T> extends AbstractList<T> implements RandomAccess {
    private final List<T> base;
    private final int[] order;

    public Reordered(List<T> base, int[] order) {
        this.base = base;
        this.order = order;
    }

    @Override
    public T get(int i) {
        return base.get(order[i]);
    }

    @Override
    public int size() {
        return order.length;
    }
}
