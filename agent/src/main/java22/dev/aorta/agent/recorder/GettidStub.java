package dev.aorta.agent.recorder;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * A {@code ()int} method handle on libc's {@code gettid()}: the calling thread's Linux thread id, the id CUPTI puts
 * in its driver-call records. Called once per recording thread, when its ring is made.
 *
 * <p>Compiled for Java 22 (the final FFM API) and loaded by {@link OsThreadIds} only on JVMs that have it.
 */
public final class GettidStub {
    private GettidStub() {
    }

    public static MethodHandle open() {
        Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().find("gettid").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT));
    }
}
