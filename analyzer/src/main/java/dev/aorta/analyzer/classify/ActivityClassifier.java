package dev.aorta.analyzer.classify;

import dev.aorta.core.event.DeviceActivity;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Sorts device activities into the classes of docs/metrics.md by name pattern and kind, never by stream alone:
 * MEMCPY/MEMSET records are memory (never compute); COLLECTIVE records are communication; a kernel whose name
 * matches the communication pattern (default {@value #DEFAULT_COMMUNICATION}: NCCL/RCCL kernels such as
 * {@code ncclDevKernel_Generic}, vLLM's {@code cross_device_reduce}) is communication; one matching the memory
 * pattern (default {@value #DEFAULT_MEMORY}: copy and fill kernels the HIP runtime uses to implement
 * memcpy/memset, {@code __amd_rocclr_copyBuffer}, {@code __amd_rocclr_fillBufferAligned}, ...) is memory; every
 * other kernel is compute. OTHER records count in no class.
 */
public final class ActivityClassifier {
    public static final String DEFAULT_COMMUNICATION = "(?i)nccl|rccl|cross_device_reduce";
    private static final int MAX_CACHED_NAMES = 200_000;
    public static final String DEFAULT_MEMORY = "(?i)^(memcpy|memset)|__amd_rocclr_(copy|fill)";

    private final Pattern communication;
    private final Pattern memory;
    /** Kernel names repeat (44K dispatches of 10K names in a real trace): match each name once. */
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
