package dev.aorta.plugins.javacpp;

import dev.aorta.agent.bind.CollectiveBinder;
import org.bytedeco.javacpp.Pointer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Collective binding for JavaCPP's NCCL: the {@code CUstream_st} handed to a collective is swapped for one holding
 * the device's comm stream (the binder's, see {@link CollectiveBinder}), and the join is arranged after it. Without
 * JCuda, the binder's stream operations come from JavaCPP's own cudart ({@link JavaCppStreamOps}), supplied by the
 * first collective. Collectives are milliseconds: this may allocate and look things up.
 */
public final class JavaCppStreams {
    /** The comm streams as the application's stream class, by address (one per device). */
    private static final Map<Long, Pointer> COMM = new ConcurrentHashMap<>();

    private JavaCppStreams() {
    }

    /** The stream the collective should run on: {@code stream}, or a pointer of its class to the comm stream. */
    public static Pointer beforeCollective(Pointer stream) {
        if (!CollectiveBinder.supplyOps(() -> JavaCppStreamOps.near(stream), "JavaCPP's cudart")) {
            return stream;
        }
        long app = JavaCppAddress.of(stream);
        long comm = CollectiveBinder.beforeCollective(app);
        if (comm == app) {
            return stream;
        }
        return COMM.computeIfAbsent(comm, a -> JavaCppAddress.pointer(stream == null ? Pointer.class : stream.getClass(), a));
    }

    /** The collective is enqueued on {@code used}: the application's stream joins it (now or later, per the mode). */
    public static void afterCollective(Pointer application, Pointer used) {
        CollectiveBinder.afterCollective(JavaCppAddress.of(application), JavaCppAddress.of(used));
    }
}
