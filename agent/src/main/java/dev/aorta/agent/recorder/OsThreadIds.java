package dev.aorta.agent.recorder;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The native ids of each recording thread, keyed by its Java thread id, taken once when the thread's ring is made.
 * CUPTI reports the thread of each driver call in a 32-bit field; on Linux it puts there the low 32 bits of the
 * thread's {@code pthread_self()} handle, not its kernel id (an H100 run with 4 launching threads: none of CUPTI's
 * thread ids was a {@code gettid}; PyTorch's Kineto maps CUPTI's threads by the pthread handle too). Both ids are
 * kept, and the join pairs a thread with whichever CUPTI shows, instead of guessing the pairing from timing, which
 * goes wrong when several threads launch at once (four threads at 258 000 launches/s on an H100: 59% of a window's
 * launches went unjoined, whole threads taken for one another). Read only once CUPTI runs ({@link #enable}): the
 * calls are native, and the JDK warns about native calls in the application's stderr unless they are enabled, which
 * CUPTI's own calls make it do anyway. Empty where the ids cannot be read (before Java 22, off Linux, a thread whose
 * ring was made before CUPTI started): the join then pairs by timing.
 */
public final class OsThreadIds {
    /** Not known: no CUPTI thread id is negative (they are unsigned 32-bit values). */
    public static final long UNKNOWN = -1;
    private static final String STUBS = "dev.aorta.agent.recorder.ThreadIdStubs";
    private static volatile MethodHandle[] handles;
    /** Java thread id -> {pthread handle's low 32 bits, gettid}. */
    private static final ConcurrentHashMap<Long, long[]> BY_JAVA_ID = new ConcurrentHashMap<>();

    private OsThreadIds() {
    }

    private static MethodHandle[] open() {
        if (Runtime.version().feature() < 22 || !System.getProperty("os.name", "").startsWith("Linux")) {
            return null;
        }
        try {
            MethodHandle[] h = (MethodHandle[]) Class.forName(STUBS, true, OsThreadIds.class.getClassLoader())
                    .getMethod("open").invoke(null);
            return new MethodHandle[] {
                h[0].asType(MethodType.methodType(int.class)), h[1].asType(MethodType.methodType(long.class))};
        } catch (Throwable t) {
            return null;
        }
    }

    /** From now on, threads making their rings note their ids (CUPTI's device activity has started). */
    public static synchronized void enable() {
        if (handles == null) {
            handles = open();
        }
    }

    /** Notes the calling thread's ids (the thread making its ring). */
    static void noteCurrentThread() {
        MethodHandle[] h = handles;
        if (h == null) {
            return;
        }
        try {
            int tid = (int) h[0].invokeExact();
            long pthread = (long) h[1].invokeExact();
            note(Thread.currentThread().getId(), pthread & 0xFFFF_FFFFL, Integer.toUnsignedLong(tid));
        } catch (Throwable t) {
            // unknown: the join pairs this thread by timing
        }
    }

    /** Sets a thread's ids, as CUPTI would report them: for tests, which make records for threads that never made a ring. */
    public static void note(long javaThreadId, long pthreadLow32, long gettid) {
        BY_JAVA_ID.put(javaThreadId, new long[] {pthreadLow32, gettid});
    }

    /** The low 32 bits of the Java thread's pthread handle, or {@link #UNKNOWN}. */
    public static long pthread(long javaThreadId) {
        long[] ids = BY_JAVA_ID.get(javaThreadId);
        return ids == null ? UNKNOWN : ids[0];
    }

    /** The Java thread's Linux thread id, or {@link #UNKNOWN}. */
    public static long gettid(long javaThreadId) {
        long[] ids = BY_JAVA_ID.get(javaThreadId);
        return ids == null ? UNKNOWN : ids[1];
    }
}
