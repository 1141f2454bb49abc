package dev.aorta.agent.recorder;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Method handles on libc's {@code gettid()} ({@code ()int}, the Linux thread id) and {@code pthread_self()}
 * ({@code ()long}, the pthread handle, whose low 32 bits CUPTI reports as a driver call's thread). Called once per
 * recording thread, when its ring is made.
 *
 * <p>Compiled for Java 22 (the final FFM API) and loaded by {@link OsThreadIds} only on JVMs that have it.
 */
public final class ThreadIdStubs {
    private ThreadIdStubs() {
    }

    /** {@code {gettid, pthread_self}}. */
    public static MethodHandle[] open() {
        Linker linker = Linker.nativeLinker();
        return new MethodHandle[] {
            linker.downcallHandle(linker.defaultLookup().find("gettid").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT)),
            linker.downcallHandle(linker.defaultLookup().find("pthread_self").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG)),
        };
    }
}
