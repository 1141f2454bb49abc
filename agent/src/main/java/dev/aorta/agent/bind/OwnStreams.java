package dev.aorta.agent.bind;

import dev.aorta.agent.AgentLog;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The aorta-gpu binding's {@code dev.aorta.gpu.cuda.Stream} objects, which its NCCL collectives take: the
 * native address inside one (a private-lookup VarHandle on its {@code address} field, made once), and
 * comm streams created as such objects so that a rebound collective can be handed one.
 */
public final class OwnStreams {
    static final String STREAM = "dev.aorta.gpu.cuda.Stream";
    static final String ADDRESS_FIELD = "address";
    private static volatile ClassLoader loader;
    private static final Map<Long, Object> CREATED = new ConcurrentHashMap<>();

    private OwnStreams() {
    }

    /** Notes the class loader of the aorta-gpu classes (done when the agent instruments one of them). */
    public static void foundIn(ClassLoader l) {
        if (loader == null) {
            loader = l == null ? ClassLoader.getSystemClassLoader() : l;
        }
    }

    /** The stream's native address; 0 for null. */
    public static long address(Object stream) {
        VarHandle h = Holder.ADDRESS;
        return stream == null || h == null ? 0 : (long) h.get(stream);
    }

    /** Called by collective advice: the Stream object to run on instead of {@code applicationStream}. */
    public static Object beforeCollective(Object applicationStream) {
        long app = address(applicationStream);
        long comm = CollectiveBinder.beforeCollective(app);
        Object commStream = comm == app ? null : CREATED.get(comm);
        return commStream == null ? applicationStream : commStream;
    }

    public static void afterCollective(Object applicationStream, Object usedStream) {
        CollectiveBinder.afterCollective(address(applicationStream), address(usedStream));
    }

    /**
     * Creates a non-blocking aorta-gpu Stream with this priority and returns its address, or 0 when the
     * aorta-gpu classes are not there (the caller then creates a plain driver stream).
     */
    public static long tryCreate(int priority) {
        MethodHandle ctor = Holder.CONSTRUCTOR;
        if (ctor == null) {
            return 0;
        }
        try {
            Object s = ctor.invoke(priority, true);
            long address = address(s);
            CREATED.put(address, s);
            return address;
        } catch (Throwable t) {
            throw new IllegalStateException("creating a " + STREAM + " failed: " + t, t);
        }
    }

    private static final class Holder {
        static final VarHandle ADDRESS;
        static final MethodHandle CONSTRUCTOR;

        static {
            VarHandle address = null;
            MethodHandle ctor = null;
            ClassLoader l = loader;
            if (l != null) {
                try {
                    Class<?> type = Class.forName(STREAM, false, l);
                    MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
                    address = lookup.findVarHandle(type, ADDRESS_FIELD, long.class);
                    ctor = lookup.findConstructor(type, MethodType.methodType(void.class, int.class, boolean.class));
                } catch (ReflectiveOperationException | RuntimeException e) {
                    AgentLog.once("own-streams", "cannot use " + STREAM + " (" + e + "); its collectives are recorded "
                            + "with stream 0 and not rebound");
                }
            }
            ADDRESS = address;
            CONSTRUCTOR = ctor;
        }
    }
}
