package dev.aorta.cli;

import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuSessionFactory;
import dev.aorta.workloads.session.NativeEnvironment;
import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.HarnessOptions;

import java.util.LinkedHashMap;
import java.util.Map;

/** Applies the environment options and opens the GPU, in that order (the driver reads them once). */
final class GpuEnvironment {
    static final String MAX_CONNECTIONS = "CUDA_DEVICE_MAX_CONNECTIONS";

    private GpuEnvironment() {
    }

    static GpuSession open(GpuSessionFactory factory, HarnessOptions options) {
        if (options.maxConnections() != null) {
            NativeEnvironment.set(MAX_CONNECTIONS, options.maxConnections().toString());
        }
        return factory.open(options.device());
    }

    /** The scheduling-related environment as the driver sees it (null: unset). */
    static Map<String, String> recorded() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String name : Harness.RECORDED_ENV) {
            env.put(name, NativeEnvironment.get(name));
        }
        return env;
    }
}
