package dev.aorta.agent.clock;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.function.LongSupplier;

/**
 * CLOCK_BOOTTIME in nanoseconds through libc's {@code clock_gettime}: the clock rocprofv3 stamps its records with.
 * Compiled for Java 22 (the final FFM API) and loaded by {@code ClockAnchors} only on JVMs that have it; read at
 * anchors (agent start, each capture window), never on the hot path, so one allocation per read is fine.
 */
public final class BootTimeStub {
    /** {@code CLOCK_BOOTTIME} on Linux. */
    private static final int CLOCK_BOOTTIME = 7;

    private BootTimeStub() {
    }

    /** A reader of CLOCK_BOOTTIME, checked by one read. */
    public static LongSupplier open() throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle clockGettime = linker.downcallHandle(linker.defaultLookup().find("clock_gettime").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        LongSupplier reader = () -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment ts = arena.allocate(16, 8);  // struct timespec { time_t tv_sec; long tv_nsec; }
                int rc = (int) clockGettime.invokeExact(CLOCK_BOOTTIME, ts);
                if (rc != 0) {
                    throw new IllegalStateException("clock_gettime(CLOCK_BOOTTIME) returned " + rc);
                }
                return ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + ts.get(ValueLayout.JAVA_LONG, 8);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        };
        reader.getAsLong();
        return reader;
    }
}
