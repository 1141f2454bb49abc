package dev.aorta.workloads.spi;

import java.util.List;
import java.util.Optional;

/**
 * A GPU workload the harness can run, found with {@link java.util.ServiceLoader} (list the class in
 * {@code META-INF/services/dev.aorta.workloads.spi.Workload}). A fresh instance serves one run:
 * {@link #setup} once, {@link #runIteration} for every warmup, measured and traced iteration (each phase numbers its
 * iterations from 0), {@link #cleanup} once.
 *
 * <p>{@link #runIteration} only enqueues work, through the context's {@link Op}s, on the context's
 * streams; it never waits for the device: the harness owns synchronization and timing.
 */
public interface Workload {

    /** Unique, snake_case, e.g. {@code tiny_kernel_stress}. */
    String name();

    /** One sentence: what it stresses. */
    String description();

    /** Group shown by {@code aorta list -c}, e.g. {@code hw_queue}. */
    String category();

    Priority priority();

    /** Stream counts the workload is defined for; the CLI rejects others. */
    StreamRange streamRange();

    /** Stream count used when the user names none. */
    int recommendedStreams();

    /** How strongly its results depend on the cost of switching between hardware queues. */
    SwitchLatencySensitivity switchLatencySensitivity();

    /** The workload's own options ({@code --param name=value}) with their defaults. */
    default List<WorkloadParameter> parameters() {
        return List.of();
    }

    /** Whether {@code --dtype} means something to it (GEMM workloads). */
    default boolean usesDtype() {
        return false;
    }

    /**
     * The role of a stream (e.g. {@code large}/{@code small}), written into results and traces;
     * the default gives every stream the role {@code compute}.
     */
    default String streamRole(int streamIndex, int streamCount) {
        return "compute";
    }

    /**
     * When set, the harness measures how long kernels of the waiting role wait while a kernel of the
     * blocking role runs (the convoy effect), against how long they wait otherwise.
     */
    default Optional<ConvoyRoles> convoyRoles() {
        return Optional.empty();
    }

    /** Allocates, fills and prepares everything; may synchronize. */
    void setup(WorkloadContext context);

    /**
     * Called once right before the measured iterations (after warm-up; they run untraced); may wait for the device.
     * Workloads that run across processes align their ranks here, so that the start-up skew between processes is
     * not timed as part of the first iteration.
     */
    default void beforeMeasuredIterations() {
    }

    /**
     * Called once the device has finished the measured iterations, before {@link #throughput}, the correctness
     * check and the traced iterations that the harness runs after them for the device timeline (which call
     * {@link #runIteration} again, numbered from 0): a workload that counts on the device what its iterations
     * produced reads the measured iterations' share here.
     */
    default void afterMeasuredIterations() {
    }

    /** Enqueues one iteration's work. Must not wait for the device. */
    void runIteration(int iteration);

    /** The workload's throughput over {@code iterations} iterations that took {@code totalTimeMs} on the device. */
    Throughput throughput(int iterations, double totalTimeMs);

    /**
     * Whether stream {@code streamIndex} must run at the device's highest priority whatever {@code --priorities}
     * says (a copy stream that must not wait behind compute, as AORTA's SDMA prototype gives it priority -1).
     */
    default boolean urgentStream(int streamIndex, int streamCount) {
        return false;
    }

    /**
     * The workload's own figures, computed from the device activity of the traced iterations (one list per
     * iteration when the records split evenly into iterations, else one list), with the streams' activity ids in
     * index order; written under {@code workload_results} and printed by {@code run}. Empty when it has none.
     */
    default java.util.Map<String, Object> results(List<List<dev.aorta.core.event.DeviceActivity>> iterations,
                                                 List<Long> streamIds) {
        return java.util.Map.of();
    }

    /** Whether {@link #correctnessProblem()} checks anything. */
    default boolean hasCorrectnessCheck() {
        return false;
    }

    /**
     * Checks the output once the device is idle after the measured iterations (before the traced ones); empty when
     * correct.
     */
    default Optional<String> correctnessProblem() {
        return Optional.empty();
    }

    /**
     * Whether {@link #runBaselineIteration} exists: the same work as a plain loop on the first stream,
     * straight through the library, which the harness times as the reference for its own overhead.
     */
    default boolean hasBaselineLoop() {
        return false;
    }

    /** Enqueues one iteration's work as a plain loop on the first stream (see {@link #hasBaselineLoop}). */
    default void runBaselineIteration(int iteration) {
        throw new UnsupportedOperationException(name() + " has no baseline loop");
    }

    /** Frees what {@link #setup} made; called even when setup or an iteration failed. */
    void cleanup();
}
