package dev.aorta.testing;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.ClassNameFilter;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

import java.util.Arrays;

/**
 * Runs the named test classes through the JUnit Platform and prints one line per test (PASS, FAIL with its
 * message, SKIP with its reason), then the counts; exits 1 when a test failed or none ran. The GPU hosts have a Java
 * runtime but no Maven, and the GPU tests skip everywhere else, so this is how they run where they mean something
 * (scripts/gpu-tests.sh carries the test classes there).
 *
 * <p>Usage: {@code GpuTestsMain CLASS...} (fully qualified names), or {@code GpuTestsMain --all} for every class
 * under dev.aorta whose name has Gpu and ends in Test (OpsGpuTest, GpuSmokeTest).
 */
public final class GpuTestsMain {
    private GpuTestsMain() {
    }

    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: GpuTestsMain CLASS... (fully qualified test class names) | --all");
            System.exit(2);
        }
        LauncherDiscoveryRequest request = args.length == 1 && args[0].equals("--all")
                ? LauncherDiscoveryRequestBuilder.request().selectors(DiscoverySelectors.selectPackage("dev.aorta"))
                        .filters(ClassNameFilter.includeClassNamePatterns(".*Gpu\\w*Test")).build()
                : LauncherDiscoveryRequestBuilder.request()
                        .selectors(Arrays.stream(args).map(DiscoverySelectors::selectClass).toList()).build();
        Counts counts = new Counts();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, counts);
        System.out.printf("tests: %d passed, %d failed, %d skipped%n", counts.passed, counts.failed, counts.skipped);
        System.exit(counts.failed > 0 || counts.passed == 0 ? 1 : 0);
    }

    /** Prints each test as it ends and counts the outcomes. */
    private static final class Counts implements TestExecutionListener {
        int passed;
        int failed;
        int skipped;

        @Override
        public void executionSkipped(TestIdentifier test, String reason) {
            // a test, or a whole class that a condition switched off (its tests are not reported one by one)
            skipped++;
            System.out.println("SKIP " + name(test) + ": " + reason);
        }

        @Override
        public void executionFinished(TestIdentifier test, TestExecutionResult result) {
            if (!test.isTest() && result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                return;
            }
            switch (result.getStatus()) {
                case SUCCESSFUL -> {
                    passed++;
                    System.out.println("PASS " + name(test));
                }
                case ABORTED -> {
                    skipped++;
                    System.out.println("SKIP " + name(test) + ": " + message(result));
                }
                case FAILED -> {
                    failed++;
                    System.out.println("FAIL " + name(test) + ": " + message(result));
                    result.getThrowable().ifPresent(t -> t.printStackTrace(System.out));
                }
            }
        }

        private static String name(TestIdentifier test) {
            return test.getLegacyReportingName().isEmpty() ? test.getDisplayName()
                    : test.getUniqueId().replaceAll(".*\\[class:([^\\]]*)\\].*", "$1").replaceAll(".*\\.", "")
                    + " " + test.getDisplayName();
        }

        private static String message(TestExecutionResult result) {
            return result.getThrowable().map(t -> t.getClass().getSimpleName() + ": " + t.getMessage())
                    .orElse("(no reason given)");
        }
    }
}
