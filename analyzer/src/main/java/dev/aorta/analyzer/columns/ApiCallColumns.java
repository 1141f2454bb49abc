package dev.aorta.analyzer.columns;

import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;

/**
 * API calls held column-wise, like {@link ActivityColumns}: about 50 bytes a call. Most calls have no arguments;
 * the few argument maps (collective metadata, GEMM shapes, agent call arguments) are kept as they are.
 */
public final class ApiCallColumns extends AbstractList<ApiCall> implements RandomAccess {
    private static final ClockDomain[] CLOCKS = ClockDomain.values();
    private static final int NO_ARGS = -1;
    private final Interned<String> names = new Interned<>();
    private final List<Map<String, Object>> argMaps = new ArrayList<>();
    private int size;
    private byte[] clock = new byte[0];
    private int[] name = new int[0];
    private int[] result = new int[0];
    private int[] args = new int[0];
    private long[] thread = new long[0];
    private long[] stream = new long[0];
    private long[] start = new long[0];
    private long[] end = new long[0];
    private long[] correlation = new long[0];

    @Override
    public boolean add(ApiCall c) {
        if (size == start.length) {
            grow();
        }
        int i = size;
        clock[i] = (byte) c.clock().ordinal();
        name[i] = names.id(c.name());
        result[i] = c.result();
        if (c.args().isEmpty()) {
            args[i] = NO_ARGS;
        } else {
            args[i] = argMaps.size();
            argMaps.add(c.args());
        }
        thread[i] = c.thread();
        stream[i] = c.stream();
        start[i] = c.startNs();
        end[i] = c.endNs();
        correlation[i] = c.correlationId();
        size++;
        modCount++;
        return true;
    }

    @Override
    public ApiCall get(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException(i);
        }
        return new ApiCall(names.value(name[i]), thread[i], stream[i], start[i], end[i], correlation[i], result[i],
                args[i] == NO_ARGS ? Map.of() : argMaps.get(args[i]), CLOCKS[clock[i]]);
    }

    @Override
    public int size() {
        return size;
    }

    /** The clock of call {@code i}, without building the record. */
    public ClockDomain clock(int i) {
        return CLOCKS[clock[i]];
    }

    /** The arguments of call {@code i}, without building the record. */
    public Map<String, Object> args(int i) {
        return args[i] == NO_ARGS ? Map.of() : argMaps.get(args[i]);
    }

    /** Adds call {@code i} of {@code from} moved by {@code ns} (clock unchanged), without building the record. */
    public void addShifted(ApiCallColumns from, int i, long ns) {
        addFrom(from, i, ns, null);
    }

    /**
     * Adds call {@code i} of {@code from} moved by {@code ns} (clock unchanged), with {@code args} for its arguments
     * unless that is null, without building the record.
     */
    public void addFrom(ApiCallColumns from, int i, long ns, Map<String, Object> args) {
        if (size == start.length) {
            grow();
        }
        int k = size;
        clock[k] = from.clock[i];
        name[k] = names.id(from.names.value(from.name[i]));
        result[k] = from.result[i];
        Map<String, Object> a = args != null ? args : from.args(i);
        if (a.isEmpty()) {
            this.args[k] = NO_ARGS;
        } else {
            this.args[k] = argMaps.size();
            argMaps.add(a);
        }
        thread[k] = from.thread[i];
        stream[k] = from.stream[i];
        start[k] = from.start[i] + ns;
        end[k] = from.end[i] + ns;
        correlation[k] = from.correlation[i];
        size++;
        modCount++;
    }

    /** The name of call {@code i}, without building the record. */
    public String name(int i) {
        return names.value(name[i]);
    }

    /** The end of call {@code i}, without building the record. */
    public long endNs(int i) {
        return end[i];
    }

    /** The start of call {@code i}, without building the record. */
    public long startNs(int i) {
        return start[i];
    }

    /** The correlation id of call {@code i}, without building the record. */
    public long correlationId(int i) {
        return correlation[i];
    }

    private void grow() {
        int capacity = Growth.next(start.length);
        clock = Growth.grow(clock, capacity);
        name = Growth.grow(name, capacity);
        result = Growth.grow(result, capacity);
        args = Growth.grow(args, capacity);
        thread = Growth.grow(thread, capacity);
        stream = Growth.grow(stream, capacity);
        start = Growth.grow(start, capacity);
        end = Growth.grow(end, capacity);
        correlation = Growth.grow(correlation, capacity);
    }
}
