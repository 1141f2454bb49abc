package dev.aorta.agent.spi;

import java.util.List;

/**
 * One library's interception: which types, which methods, what each call means. Discovered with
 * {@link java.util.ServiceLoader} ({@code META-INF/services/dev.aorta.agent.spi.InterceptionPlugin}).
 *
 * <p>Advice classes must be stateless, with {@code suppress = Throwable.class} on both edges, read at
 * most one clock per edge and allocate nothing; they hand primitives to
 * {@link dev.aorta.agent.recorder.Recorder}.
 */
public interface InterceptionPlugin {

    /** Short name for logs, e.g. {@code jcuda-driver}. */
    String name();

    /** A class whose presence means the library is there (used for the "not present, idle" log line). */
    String probeClass();

    /** The methods to intercept. */
    List<Interception> interceptions();

    /**
     * Methods whose absence means an unsupported version of the library: the plugin then leaves the
     * type alone and says so once. Default: none required.
     */
    default List<String> requiredMethods() {
        return List.of();
    }

    /** Instance fields the advice reads ({@code @Advice.FieldValue}); absent fields mean an unsupported version. */
    default List<String> requiredFields(String type) {
        return List.of();
    }

    /**
     * True when the plugin can only wrap methods while their class first loads (native-method prefix),
     * so that a late attach cannot instrument classes already loaded.
     */
    default boolean needsLoadTimeTransformation() {
        return false;
    }
}
