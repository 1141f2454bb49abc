package dev.aorta.analyzer.columns;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.RandomAccess;

/**
 * Device activities held column-wise: one primitive array per field, names and launch shapes as ids into
 * {@link Interned} tables, so a record costs about 60 bytes instead of a {@link DeviceActivity} object, its name
 * string and two shapes (several hundred bytes). {@link #get} builds the record on demand; the analyses read the
 * list as before. Enqueue and submission times, which most traces lack, get their columns at the first record that
 * has one.
 */
public final class ActivityColumns extends AbstractList<DeviceActivity> implements RandomAccess {
    private static final ActivityKind[] KINDS = ActivityKind.values();
    private static final ClockDomain[] CLOCKS = ClockDomain.values();
    private final Interned<String> names = new Interned<>();
    private final Interned<Dim3> shapes = new Interned<>();
    private int size;
    private byte[] kind = new byte[0];
    private byte[] clock = new byte[0];
    private int[] name = new int[0];
    private int[] rank = new int[0];
    private int[] device = new int[0];
    private int[] grid = new int[0];
    private int[] block = new int[0];
    private long[] stream = new long[0];
    private long[] start = new long[0];
    private long[] end = new long[0];
    private long[] correlation = new long[0];
    private long[] bytes = new long[0];
    private long[] queued;
    private long[] submitted;

    @Override
    public boolean add(DeviceActivity a) {
        if (size == start.length) {
            grow();
        }
        int i = size;
        kind[i] = (byte) a.kind().ordinal();
        clock[i] = (byte) a.clock().ordinal();
        name[i] = names.id(a.name());
        rank[i] = a.rank();
        device[i] = a.device();
        grid[i] = shapes.id(a.grid());
        block[i] = shapes.id(a.block());
        stream[i] = a.stream();
        start[i] = a.startNs();
        end[i] = a.endNs();
        correlation[i] = a.correlationId();
        bytes[i] = a.bytes();
        if (a.queuedNs() != DeviceActivity.UNKNOWN && queued == null) {
            queued = unknowns(start.length);
        }
        if (queued != null) {
            queued[i] = a.queuedNs();
        }
        if (a.submittedNs() != DeviceActivity.UNKNOWN && submitted == null) {
            submitted = unknowns(start.length);
        }
        if (submitted != null) {
            submitted[i] = a.submittedNs();
        }
        size++;
        modCount++;
        return true;
    }

    @Override
    public DeviceActivity get(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException(i);
        }
        return new DeviceActivity(KINDS[kind[i]], names.value(name[i]), rank[i], device[i], stream[i], start[i], end[i],
                correlation[i], queued == null ? DeviceActivity.UNKNOWN : queued[i],
                submitted == null ? DeviceActivity.UNKNOWN : submitted[i], shapes.value(grid[i]),
                shapes.value(block[i]), bytes[i], CLOCKS[clock[i]]);
    }

    @Override
    public int size() {
        return size;
    }

    /** The clock of activity {@code i}, without building the record. */
    public ClockDomain clock(int i) {
        return CLOCKS[clock[i]];
    }

    /** The rank of activity {@code i}, without building the record. */
    public int rank(int i) {
        return rank[i];
    }

    /**
     * Adds activity {@code i} of {@code from} moved by {@code ns} onto {@code toRank} (as
     * {@link DeviceActivity#shifted} would, clock unchanged), copying its columns without building the record.
     */
    public void addShifted(ActivityColumns from, int i, long ns, int toRank) {
        if (size == start.length) {
            grow();
        }
        int k = size;
        kind[k] = from.kind[i];
        clock[k] = from.clock[i];
        name[k] = names.id(from.names.value(from.name[i]));
        rank[k] = toRank;
        device[k] = from.device[i];
        grid[k] = shapes.id(from.shapes.value(from.grid[i]));
        block[k] = shapes.id(from.shapes.value(from.block[i]));
        stream[k] = from.stream[i];
        start[k] = from.start[i] + ns;
        end[k] = from.end[i] + ns;
        correlation[k] = from.correlation[i];
        bytes[k] = from.bytes[i];
        if (from.queued != null && from.queued[i] != DeviceActivity.UNKNOWN) {
            if (queued == null) {
                queued = unknowns(start.length);
            }
            queued[k] = from.queued[i] + ns;
        }
        if (from.submitted != null && from.submitted[i] != DeviceActivity.UNKNOWN) {
            if (submitted == null) {
                submitted = unknowns(start.length);
            }
            submitted[k] = from.submitted[i] + ns;
        }
        size++;
        modCount++;
    }

    /** Gives every activity of rank {@code from} rank {@code to} instead. */
    public void replaceRank(int from, int to) {
        for (int i = 0; i < size; i++) {
            if (rank[i] == from) {
                rank[i] = to;
            }
        }
        modCount++;
    }

    /** Whether every activity is of rank {@code a} or {@code b}. */
    public boolean allOfRanks(int a, int b) {
        for (int i = 0; i < size; i++) {
            if (rank[i] != a && rank[i] != b) {
                return false;
            }
        }
        return true;
    }

    /** The start of activity {@code i}, without building the record. */
    public long startNs(int i) {
        return start[i];
    }

    /** The end of activity {@code i}, without building the record. */
    public long endNs(int i) {
        return end[i];
    }

    /** The correlation id of activity {@code i} (0: none), without building the record. */
    public long correlationId(int i) {
        return correlation[i];
    }

    /** The enqueue time of activity {@code i} ({@link DeviceActivity#UNKNOWN} when not recorded), without building the record. */
    public long queuedNs(int i) {
        return queued == null ? DeviceActivity.UNKNOWN : queued[i];
    }

    /** The stream of activity {@code i}, without building the record. */
    public long stream(int i) {
        return stream[i];
    }

    private void grow() {
        int capacity = Growth.next(start.length);
        kind = Growth.grow(kind, capacity);
        clock = Growth.grow(clock, capacity);
        name = Growth.grow(name, capacity);
        rank = Growth.grow(rank, capacity);
        device = Growth.grow(device, capacity);
        grid = Growth.grow(grid, capacity);
        block = Growth.grow(block, capacity);
        stream = Growth.grow(stream, capacity);
        start = Growth.grow(start, capacity);
        end = Growth.grow(end, capacity);
        correlation = Growth.grow(correlation, capacity);
        bytes = Growth.grow(bytes, capacity);
        queued = grownUnknowns(queued, capacity);
        submitted = grownUnknowns(submitted, capacity);
    }

    private static long[] unknowns(int capacity) {
        long[] a = new long[capacity];
        Arrays.fill(a, DeviceActivity.UNKNOWN);
        return a;
    }

    private static long[] grownUnknowns(long[] a, int capacity) {
        if (a == null) {
            return null;
        }
        int old = a.length;
        long[] grown = Growth.grow(a, capacity);
        Arrays.fill(grown, old, capacity, DeviceActivity.UNKNOWN);
        return grown;
    }
}
