package dev.aorta.agent.device;

import dev.aorta.agent.AgentLog;
import dev.aorta.core.event.ActivityKind;
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
import java.util.function.Consumer;

/**
 * Device activity from CUPTI through the project's FFM binding {@code dev.aorta.gpu.cupti.CuptiTracer}
 * (JVM 22 or newer; loaded reflectively because the agent itself is built for Java 17).
 *
 * <p>The tracer hands over the application's own {@code dev.aorta.core.event.DeviceActivity} records
 * (the agent carries a relocated copy of core, so they are a different class here) and this source
 * converts them field by field. An anchor pair (cuptiGetTimestamp, System.nanoTime) read at start lets
 * consumers map CUPTI times onto the host clock.
 */
public final class CuptiActivitySource implements DeviceActivitySource {
    static final String TRACER = "dev.aorta.gpu.cupti.CuptiTracer";

    private final Object tracer;
    private final MethodHandle flush;
    private final MethodHandle stop;

    private CuptiActivitySource(Object tracer, MethodHandle flush, MethodHandle stop) {
        this.tracer = tracer;
        this.flush = flush;
        this.stop = stop;
    }

    /**
     * Starts CUPTI tracing into {@code activities} (first {@code anchors} gets the clock anchor); returns
     * null, having said why in one line, when CUPTI cannot be used here.
     */
    public static DeviceActivitySource tryStart(ClassLoader loader, Consumer<DeviceActivity> activities,
                                                Consumer<ClockAnchor> anchors, boolean required) {
        int feature = Runtime.version().feature();
        String why;
        if (feature < 22) {
            why = "CUPTI device activity needs JVM 22 or newer (this is " + feature + ")";
        } else {
            try {
                Class<?> type = Class.forName(TRACER, true, loader);
                MethodHandles.Lookup l = MethodHandles.publicLookup();
                MethodHandle timestamp = l.findStatic(type, "timestampNs", MethodType.methodType(long.class));
                Converter converter = new Converter();
                Consumer<Object> deliver = o -> activities.accept(converter.convert(o));
                Object tracer = type.getConstructor(Consumer.class).newInstance(deliver);
                MethodHandle start = l.findVirtual(type, "start", MethodType.methodType(void.class));
                MethodHandle flush = l.findVirtual(type, "flush", MethodType.methodType(void.class));
                MethodHandle stop = l.findVirtual(type, "stop", MethodType.methodType(void.class));
                start.invoke(tracer);
                long cupti = (long) timestamp.invoke();
                long host = System.nanoTime();
                anchors.accept(new ClockAnchor(ClockDomain.CUPTI, cupti, ClockDomain.HOST_MONOTONIC, host));
                AgentLog.info("device activity: CUPTI (kernels, copies, memsets; correlation ids are CUPTI's)");
                return new CuptiActivitySource(tracer, flush, stop);
            } catch (ClassNotFoundException e) {
                why = TRACER + " is not on the class path";
            } catch (Throwable t) {
                why = "CUPTI could not start: " + t;
            }
        }
        AgentLog.info("device activity: none (" + why + (required ? "" : "; host-side API timing only") + ")");
        return null;
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

    @Override
    public void stop() {
        try {
            stop.invoke(tracer);
        } catch (Throwable t) {
            AgentLog.once("cupti-stop", "CUPTI stop failed (" + t + ")");
        }
    }

    /**
     * Copies a record of the application's {@code DeviceActivity} class (same components, other class
     * loader or package) into the agent's own. Accessors are looked up once per class.
     */
    static final class Converter {
        private final Map<Class<?>, Map<String, Method>> accessors = new HashMap<>();

        DeviceActivity convert(Object o) {
            Map<String, Method> m = accessors.computeIfAbsent(o.getClass(), Converter::accessorsOf);
            try {
                return new DeviceActivity(
                        ActivityKind.valueOf(((Enum<?>) m.get("kind").invoke(o)).name()),
                        (String) m.get("name").invoke(o),
                        (int) m.get("rank").invoke(o), (int) m.get("device").invoke(o),
                        (long) m.get("stream").invoke(o), (long) m.get("startNs").invoke(o),
                        (long) m.get("endNs").invoke(o), (long) m.get("correlationId").invoke(o),
                        (long) m.get("queuedNs").invoke(o), (long) m.get("submittedNs").invoke(o),
                        dim(m.get("grid").invoke(o)), dim(m.get("block").invoke(o)),
                        (long) m.get("bytes").invoke(o),
                        ClockDomain.valueOf(((Enum<?>) m.get("clock").invoke(o)).name()));
            } catch (ReflectiveOperationException e) {
                throw new IllegalArgumentException("cannot read " + o.getClass().getName() + ": " + e, e);
            }
        }

        private Dim3 dim(Object d) throws ReflectiveOperationException {
            if (d == null) {
                return Dim3.NONE;
            }
            Map<String, Method> m = accessors.computeIfAbsent(d.getClass(), Converter::accessorsOf);
            return new Dim3((int) m.get("x").invoke(d), (int) m.get("y").invoke(d), (int) m.get("z").invoke(d));
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
