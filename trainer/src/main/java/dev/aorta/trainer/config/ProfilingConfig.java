package dev.aorta.trainer.config;

import com.fasterxml.jackson.annotation.JsonProperty;

import static dev.aorta.trainer.config.ConfigValueException.require;

/**
 * {@code profiling}: AORTA's torch.profiler window. When {@code enabled}, the device records of the steps in the
 * active part of the (wait, warmup, active) × repeat window are written per cycle as a Chrome/Perfetto trace,
 * {@code trace_filename} with the cycle's last step in its name ({@link dev.aorta.trainer.profile.StepTraceRecorder}).
 * {@code chrome_trace} is accepted only (the trace is always that format), as are torch.profiler's
 * {@code record_shapes}, {@code profile_memory}, {@code with_stack}, {@code with_flops} and {@code tensorboard}, so
 * that AORTA's configurations load. ({@code wait} is {@link #waitSteps()}: a record component cannot be named wait.)
 * The per-step device timing of the metrics file does not depend on this section: it is always on.
 */
public record ProfilingConfig(boolean enabled, @JsonProperty("wait") int waitSteps, int warmup, int active,
                              int repeat, boolean recordShapes, boolean profileMemory, boolean withStack,
                              boolean withFlops, boolean tensorboard, boolean chromeTrace, String traceFilename) {
    public ProfilingConfig {
        require(waitSteps >= 0, "profiling.wait", "a whole number of at least 0");
        require(warmup >= 0, "profiling.warmup", "a whole number of at least 0");
        require(active >= 1, "profiling.active", "a whole number of at least 1");
        require(repeat >= 0, "profiling.repeat", "a whole number of at least 0 (0: repeat until training ends)");
        require(traceFilename != null && !traceFilename.isBlank(), "profiling.trace_filename", "a file name");
    }

    static ProfilingConfig defaults() {
        return new ProfilingConfig(false, 1, 1, 2, 1, true, true, false, false, true, false, "trace.json");
    }
}
