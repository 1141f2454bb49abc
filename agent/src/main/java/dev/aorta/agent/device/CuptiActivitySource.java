package dev.aorta.agent.device;

import dev.aorta.agent.AgentLog;
import dev.aorta.agent.jcuda.JCudaNatives;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Device activity from CUPTI through the project's FFM binding {@code dev.aorta.gpu.cupti.CuptiTracer}
 * (JVM 22 or newer; reached reflectively because the agent itself is built for Java 17): kernels, copies
 * and memsets with queued/submitted latency timestamps, and optionally CUPTI's driver API records, whose
 * correlation ids join the agent's API records to the device activity.
 *
 * <p>The tracer hands over the application's own {@code dev.aorta.core.event} records (the agent carries a
 * relocated copy of core, so they are other classes here); they are copied field by field.
 */
public final class CuptiActivitySource implements DeviceActivitySource {
    static final String TRACER = "dev.aorta.gpu.cupti.CuptiTracer";

    /** Where the source delivers, on CUPTI's thread. */
    public interface Sink {
        void activity(DeviceActivity activity);

        void driverCall(ApiCall call);

        void anchor(ClockAnchor anchor);
    }

    private final Object tracer;
    private final MethodHandle flush;
    private final MethodHandle deliverCompleted;
    private final MethodHandle stop;
    private final MethodHandle registerStream;
    /** For cuStreamGetCtx; made on the drain thread at the first stream (JCuda is loaded by then). */
    private JCudaNatives natives;

    private CuptiActivitySource(Object tracer, MethodHandle flush, MethodHandle deliverCompleted, MethodHandle stop,
                                MethodHandle registerStream) {
        this.tracer = tracer;
        this.flush = flush;
        this.deliverCompleted = deliverCompleted;
        this.stop = stop;
        this.registerStream = registerStream;
    }

    /** The started source, or null and why not. */
    public record Started(DeviceActivitySource source, String whyNot) {
    }

    /**
     * Starts CUPTI tracing, or says why it cannot be used here.
     *
     * @param correlate also record CUPTI's driver API calls, to join API records to device activity
     */
    public static Started tryStart(ClassLoader loader, int rank, boolean correlate, Sink sink) {
        int feature = Runtime.version().feature();
        String why;
        if (feature < 22) {
            why = "CUPTI device activity needs JVM 22 or newer (this is " + feature + ")";
        } else {
            try {
                Class<?> type = Class.forName(TRACER, true, loader);
                MethodHandles.Lookup l = MethodHandles.publicLookup();
                Converter converter = new Converter();
                Consumer<Object> activities = o -> sink.activity(converter.activity(o));
                Consumer<Object> calls = o -> sink.driverCall(converter.call(o));
                Object tracer = l.findStatic(type, "start", MethodType.methodType(type, Consumer.class, Consumer.class,
                        int.class, boolean.class)).invoke(activities, correlate ? calls : null, rank, true);
                // anchor() returns the application's ClockAnchor class: called reflectively, by name
                sink.anchor(converter.anchor(type.getMethod("anchor").invoke(null)));
                AgentLog.info("device activity: CUPTI (kernels, copies, memsets"
                        + (correlate ? "; API records carry cupti_correlation" : "") + ")");
                return new Started(new CuptiActivitySource(tracer,
                        l.findVirtual(type, "flush", MethodType.methodType(void.class)),
                        l.findVirtual(type, "deliverCompleted", MethodType.methodType(void.class)),
                        l.findVirtual(type, "stop", MethodType.methodType(void.class)),
                        l.findVirtual(type, "registerStream", MethodType.methodType(void.class, long.class, long.class))),
                        null);
            } catch (ClassNotFoundException e) {
                why = TRACER + " is not on the class path";
            } catch (Throwable t) {
                why = "CUPTI could not start: " + t;
            }
        }
        return new Started(null, why);
    }

    @Override
    public String name() {
        return "cupti";
    }

    @Override
    public void flush() {
        try {
            flush.invoke(tracer);
        } catch (Throwable t) {
            AgentLog.once("cupti-flush", "CUPTI flush failed (" + t + "); later device activity may be missing");
        }
    }

    /** Every drain cycle: the buffers CUPTI has filled, so that records keep coming without iteration markers. */
    @Override
    public void poll() {
        try {
            deliverCompleted.invoke(tracer);
        } catch (Throwable t) {
            AgentLog.once("cupti-poll", "CUPTI flush of completed buffers failed (" + t + "); records now come at"
                    + " iteration ends and at exit only");
        }
    }

    @Override
    public void stop() {
        try {
            stop.invoke(tracer);
        } catch (Throwable t) {
            AgentLog.once("cupti-stop", "CUPTI stop failed (" + t + ")");
        }
    }

    /** Tells CUPTI the stream's address (its records then carry it instead of CUPTI's own stream id). */
    @Override
    public void streamCreated(long stream) {
        try {
            if (natives == null) {
                natives = new JCudaNatives();
            }
            registerStream.invoke(tracer, natives.streamContext(stream), stream);
        } catch (Throwable t) {
            AgentLog.once("cupti-register", "cannot register streams with CUPTI (" + t
                    + "); device records carry CUPTI stream ids, not addresses");
        }
    }

    /**
     * Copies records of the application's {@code dev.aorta.core.event} classes (same components, other
     * class) into the agent's own. Accessors are looked up once per class.
     */
    static final class Converter {
        private final Map<Class<?>, Map<String, Method>> accessors = new ConcurrentHashMap<>();

        DeviceActivity activity(Object o) {
            try {
                Map<String, Method> m = of(o);
                return new DeviceActivity(
                        ActivityKind.valueOf(((Enum<?>) m.get("kind").invoke(o)).name()),
                        (String) m.get("name").invoke(o),
                        (int) m.get("rank").invoke(o), (int) m.get("device").invoke(o),
                        (long) m.get("stream").invoke(o), (long) m.get("startNs").invoke(o),
                        (long) m.get("endNs").invoke(o), (long) m.get("correlationId").invoke(o),
                        (long) m.get("queuedNs").invoke(o), (long) m.get("submittedNs").invoke(o),
                        dim(m.get("grid").invoke(o)), dim(m.get("block").invoke(o)),
                        (long) m.get("bytes").invoke(o), clock(m.get("clock").invoke(o)));
            } catch (ReflectiveOperationException e) {
                throw new IllegalArgumentException("cannot read " + o.getClass().getName() + ": " + e, e);
            }
        }

        ApiCall call(Object o) {
            try {
                Map<String, Method> m = of(o);
                return new ApiCall((String) m.get("name").invoke(o), (long) m.get("thread").invoke(o),
                        (long) m.get("stream").invoke(o), (long) m.get("startNs").invoke(o),
                        (long) m.get("endNs").invoke(o), (long) m.get("correlationId").invoke(o),
                        (int) m.get("result").invoke(o), Map.of(), clock(m.get("clock").invoke(o)));
            } catch (ReflectiveOperationException e) {
                throw new IllegalArgumentException("cannot read " + o.getClass().getName() + ": " + e, e);
            }
        }

        ClockAnchor anchor(Object o) throws ReflectiveOperationException {
            Map<String, Method> m = of(o);
            return new ClockAnchor(clock(m.get("from").invoke(o)), (long) m.get("fromNs").invoke(o),
                    clock(m.get("to").invoke(o)), (long) m.get("toNs").invoke(o));
        }

        private static ClockDomain clock(Object e) {
            return ClockDomain.valueOf(((Enum<?>) e).name());
        }

        private Dim3 dim(Object d) throws ReflectiveOperationException {
            if (d == null) {
                return Dim3.NONE;
            }
            Map<String, Method> m = of(d);
            return new Dim3((int) m.get("x").invoke(d), (int) m.get("y").invoke(d), (int) m.get("z").invoke(d));
        }

        private Map<String, Method> of(Object o) {
            return accessors.computeIfAbsent(o.getClass(), Converter::accessorsOf);
        }

        private static Map<String, Method> accessorsOf(Class<?> type) {
            RecordComponent[] components = type.getRecordComponents();
            if (components == null) {
                throw new IllegalArgumentException(type.getName() + " is not a record");
            }
            Map<String, Method> m = new HashMap<>();
            for (RecordComponent c : components) {
                Method accessor = c.getAccessor();
                accessor.setAccessible(true);
                m.put(c.getName(), accessor);
            }
            return m;
        }
    }
}
