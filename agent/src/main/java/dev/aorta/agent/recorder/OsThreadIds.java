package dev.aorta.agent.recorder;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Linux thread id of each recording thread, keyed by its Java thread id, taken once when the thread's ring is
 * made. CUPTI reports the thread of each driver call by that id; knowing it, the join pairs a thread's calls with its
 * own driver calls instead of guessing the pairing from timing, which goes wrong when several threads launch at once
 * (four threads at 230 000 launches/s on an H100: a third to a half of the window's launches went unjoined).
 * Empty where it cannot be known (before Java 22, or without {@code gettid}): the join then pairs by timing.
 */
public final class OsThreadIds {
    private static final String STUB = "dev.aorta.agent.recorder.GettidStub";
    private static final MethodHandle GETTID = open();
    private static final ConcurrentHashMap<Long, Long> BY_JAVA_ID = new ConcurrentHashMap<>();

    private OsThreadIds() {
    }

    private static MethodHandle open() {
        if (Runtime.version().feature() < 22 || !System.getProperty("os.name", "").startsWith("Linux")) {
            return null;
        }
        try {
            MethodHandle h = (MethodHandle) Class.forName(STUB, true, OsThreadIds.class.getClassLoader())
                    .getMethod("open").invoke(null);
            return h.asType(MethodType.methodType(int.class));
        } catch (Throwable t) {
            return null;
        }
    }

    /** Notes the calling thread's OS id (the thread making its ring). */
    static void noteCurrentThread() {
        if (GETTID == null) {
            return;
        }
        try {
            int tid = (int) GETTID.invokeExact();
            BY_JAVA_ID.put(Thread.currentThread().getId(), Integer.toUnsignedLong(tid));
        } catch (Throwable t) {
            // unknown: the join pairs this thread by timing
        }
    }

    /** Sets a thread's OS id: for tests, which make records for threads that never made a ring. */
    public static void note(long javaThreadId, long osThreadId) {
        BY_JAVA_ID.put(javaThreadId, osThreadId);
    }

    /** The OS thread id of the Java thread, or -1 when it is not known. */
    public static long of(long javaThreadId) {
        Long tid = BY_JAVA_ID.get(javaThreadId);
        return tid == null ? -1 : tid;
    }
}
