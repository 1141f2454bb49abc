package dev.aorta.agent.device;

import dev.aorta.agent.AgentLog;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.DeviceActivity;

import java.lang.reflect.InvocationTargetException;

/**
 * Starts CUPTI device activity through {@code CuptiActivitySource}, which is compiled for Java 22 against
 * aorta-gpu's {@code CuptiTracer} (src/main/java22) while this code also runs on Java 17: it is looked up by name
 * once, here; from then on the drain thread reaches it as a {@link DeviceActivitySource} and CUPTI's thread hands
 * records to a {@link Sink}, both compiled into the agent.
 *
 * <p>aorta-gpu is not bundled with the agent: the tracer is the application's copy, found through the agent's
 * class loader, which is the application's (system) class loader. Without aorta-gpu there is no CUPTI.
 */
public final class CuptiLoader {
    static final String TRACER = "dev.aorta.gpu.cupti.CuptiTracer";
    static final String SOURCE = "dev.aorta.agent.device.CuptiActivitySource";

    private CuptiLoader() {
    }

    /** Where the source delivers, on CUPTI's thread. */
    public interface Sink {
        void activity(DeviceActivity activity);

        void driverCall(ApiCall call);

        void anchor(ClockAnchor anchor);

        /** CUPTI is about to be enabled, at host {@code hostNs} ({@code System.nanoTime()}). */
        void subscribing(long hostNs);

        /** CUPTI is about to be flushed and disabled, at host {@code hostNs}. */
        void unsubscribing(long hostNs);

        /** CUPTI, unsubscribed at host {@code hostNs}, has handed over every record it had. */
        void stopped(long hostNs);
    }

    /** The started source, or null and why not. */
    public record Started(DeviceActivitySource source, String whyNot) {
    }

    /**
     * Starts CUPTI tracing, or says why it cannot be used here.
     *
     * @param correlate also record CUPTI's driver API calls, to join API records to device activity
     */
    public static Started tryStart(int rank, boolean correlate, Sink sink) {
        int feature = Runtime.version().feature();
        if (feature < 22) {
            return new Started(null, "CUPTI device activity needs JVM 22 or newer (this is " + feature + ")");
        }
        ClassLoader loader = CuptiLoader.class.getClassLoader();
        String why;
        try {
            Class.forName(TRACER, false, loader);
            DeviceActivitySource source = (DeviceActivitySource) Class.forName(SOURCE, true, loader)
                    .getMethod("start", int.class, boolean.class, Sink.class).invoke(null, rank, correlate, sink);
            AgentLog.info("device activity: CUPTI (kernels, copies, memsets"
                    + (correlate ? "; API records carry cupti_correlation" : "") + ")");
            return new Started(source, null);
        } catch (ClassNotFoundException e) {
            why = TRACER + " is not on the class path";
        } catch (InvocationTargetException e) {
            why = "CUPTI could not start: " + e.getCause();
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            // a LinkageError here is an aorta-gpu of another version than the agent's
            why = "CUPTI could not start: " + e;
        }
        return new Started(null, why);
    }
}
