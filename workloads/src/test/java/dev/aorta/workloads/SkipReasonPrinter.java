package dev.aorta.workloads;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

import java.util.Optional;

/**
 * Prints why a test was skipped (no GPU, no nvcc...) on the build's console, where Maven otherwise only counts
 * it; registered for every test of this module through extension auto-detection.
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
