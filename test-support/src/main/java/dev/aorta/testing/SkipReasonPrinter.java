package dev.aorta.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

import java.util.Optional;

/**
 * Prints why a test was skipped (no GPU, no nvcc, no shared fixtures...) on the build's console, where Maven
 * otherwise only counts it. Registered through JUnit's extension auto-detection, which this jar's
 * junit-platform.properties turns on: a module gets it by taking aorta-test-support as a test dependency.
 */
public final class SkipReasonPrinter implements TestWatcher {
    @Override
    public void testAborted(ExtensionContext context, Throwable cause) {
        System.out.println("[SKIPPED] " + context.getRequiredTestClass().getSimpleName() + "." + context.getDisplayName()
                + ": " + cause.getMessage());
    }

    @Override
    public void testDisabled(ExtensionContext context, Optional<String> reason) {
        System.out.println("[SKIPPED] " + context.getRequiredTestClass().getSimpleName() + "." + context.getDisplayName()
                + ": " + reason.orElse("disabled"));
    }
}
