package dev.aorta.core.metric;

import dev.aorta.core.event.DeviceActivity;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Sorts device activities into the classes of docs/metrics.md#classification by kind and name, never by stream:
 * MEMCPY/MEMSET records are memory (never compute); COLLECTIVE records are communication; a kernel whose name
 * matches the communication pattern is communication; one matching the memory pattern is memory; every other
 * kernel is compute. OTHER records count in no class. The one classifier of the agent, the analyzer and the
 * workloads, so that a kernel is communication in all three or in none.
 *
 * <p>The default communication pattern {@value #DEFAULT_COMMUNICATION} is the union of what each module needed:
 * {@code nccl}/{@code rccl} for NCCL's and RCCL's kernels ({@code ncclDevKernel_AllReduce_Sum_f32_RING_LL},
 * {@code ncclDevKernel_Generic}); {@code cross_device_reduce} for vLLM's custom all-reduce; {@code all_?reduce},
 * {@code reduce_?scatter}, {@code all_?gather} for the collective kernels of libraries outside NCCL (PyTorch's
 * symmetric-memory {@code one_shot_all_reduce}, TensorRT-LLM's {@code allReduce} kernels), which move data between
 * devices exactly as NCCL's do; and {@code simulated_collective_copy}, the copy that stands in for a collective in
 * {@code aorta overlap} without peers. A compute kernel rarely carries one of these words; when one does, the
 * analyzer's {@code --comm-pattern} overrides the default.
 *
 * <p>The default memory pattern {@value #DEFAULT_MEMORY} names the copy and fill kernels the HIP runtime uses to
 * implement memcpy/memset ({@code __amd_rocclr_copyBuffer}, {@code __amd_rocclr_fillBufferAligned}, ...).
 *
 * <p>Thread-safe; kernel names repeat (44K dispatches of 10K names in a real trace), so each name is matched once.
 */
public final class ActivityClassifier {
    public static final String DEFAULT_COMMUNICATION =
            "(?i)nccl|rccl|cross_device_reduce|all_?reduce|reduce_?scatter|all_?gather|simulated_collective_copy";
    public static final String DEFAULT_MEMORY = "(?i)^(memcpy|memset)|__amd_rocclr_(copy|fill)";
    /** A program that makes up kernel names without end must not grow the cache without end. */
    private static final int MAX_CACHED_NAMES = 200_000;

    private final Pattern communication;
    private final Pattern memory;
    private final Map<String, ActivityClass> kernelClassByName = new ConcurrentHashMap<>();

    public ActivityClassifier(String communicationPattern, String memoryPattern) {
        this.communication = Pattern.compile(communicationPattern);
        this.memory = Pattern.compile(memoryPattern);
    }

    public static ActivityClassifier defaults() {
        return new ActivityClassifier(DEFAULT_COMMUNICATION, DEFAULT_MEMORY);
    }

    public ActivityClass classify(DeviceActivity a) {
        return switch (a.kind()) {
            case MEMCPY, MEMSET -> ActivityClass.MEMORY;
            case COLLECTIVE -> ActivityClass.COMMUNICATION;
            case OTHER -> ActivityClass.OTHER;
            case KERNEL -> classifyKernel(a.name());
        };
    }

    private ActivityClass classifyKernel(String name) {
        if (name == null) {
            return ActivityClass.COMPUTE;
        }
        ActivityClass known = kernelClassByName.get(name);
        if (known != null) {
            return known;
        }
        ActivityClass c = matchKernel(name);
        if (kernelClassByName.size() < MAX_CACHED_NAMES) {
            kernelClassByName.put(name, c);
        }
        return c;
    }

    private ActivityClass matchKernel(String name) {
        if (communication.matcher(name).find()) {
            return ActivityClass.COMMUNICATION;
        }
        if (memory.matcher(name).find()) {
            return ActivityClass.MEMORY;
        }
        return ActivityClass.COMPUTE;
    }
}
