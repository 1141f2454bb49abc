package dev.aorta.core.spi;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.Consumer;

/**
 * The providers of a service ({@link ServiceLoader}), without letting one broken provider stop the rest: a plugin
 * jar whose class is missing, fails to link or throws in its constructor costs one line and is skipped, so the
 * built-in providers and every other plugin still work.
 */
public final class ServiceProviders {
    private ServiceProviders() {
    }

    /** Every provider of {@code service} that {@code loader} can instantiate; each one skipped is told to {@code skipped}. */
    public static <T> List<T> load(Class<T> service, ClassLoader loader, Consumer<String> skipped) {
        List<T> providers = new ArrayList<>();
        Iterator<T> it = ServiceLoader.load(service, loader).iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    return providers;
                }
                providers.add(it.next());
            } catch (ServiceConfigurationError | LinkageError e) {
                // the iterator moves past a provider that failed (ServiceLoader's documented best effort)
                skipped.accept("plugin " + service.getSimpleName() + " skipped: " + describe(service, e));
            }
        }
    }

    private static String describe(Class<?> service, Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        // ServiceLoader starts its messages with the service's name, which the caller's line already gives
        message = message.startsWith(service.getName() + ": ") ? message.substring(service.getName().length() + 2)
                : message;
        Throwable cause = e.getCause();
        return cause == null ? message : message + " (" + cause + ")";
    }
}
