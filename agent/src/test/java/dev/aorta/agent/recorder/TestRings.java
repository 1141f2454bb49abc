package dev.aorta.agent.recorder;

/** Rings owned by the calling thread, filled row by row, for tests and benchmarks outside this package. */
public final class TestRings {
    private TestRings() {
    }

    public static CallBuffer ring(int capacity) {
        return new CallBuffer(capacity, Thread.currentThread(), 0);
    }

    /** A ring whose records carry {@code owner}'s thread id (filled by the caller: one benchmark thread plays several). */
    public static CallBuffer ring(int capacity, Thread owner) {
        return new CallBuffer(capacity, owner, 0);
    }

    public static void put(CallBuffer ring, int id, long start, long end, long stream, int result,
                           long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7) {
        ring.put(id, start, end, stream, result, a0, a1, a2, a3, a4, a5, a6, a7);
    }
}
