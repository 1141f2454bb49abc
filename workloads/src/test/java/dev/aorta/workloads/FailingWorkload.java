package dev.aorta.workloads;

import dev.aorta.core.event.Dim3;
import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.KernelArg;
import dev.aorta.workloads.spi.Op;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.Workload;
import dev.aorta.workloads.spi.WorkloadContext;

/**
 * A test workload (registered in the test class path's services file, tier P3) that launches one
 * kernel per iteration and throws at the measured iteration {@link #FAIL_AT}.
 */
public final class FailingWorkload implements Workload {
    public static final int FAIL_AT = 3;
    private Op relu;
    private boolean measuring;

    @Override
    public String name() {
        return "failing_for_tests";
    }

    @Override
    public String description() {
        return "Throws during iteration " + FAIL_AT + " (tests only)";
    }

    @Override
    public String category() {
        return "test";
    }

    @Override
    public Priority priority() {
        return Priority.P3;
    }

    @Override
    public StreamRange streamRange() {
        return new StreamRange(1, 4);
    }

    @Override
    public int recommendedStreams() {
        return 2;
    }

    @Override
    public SwitchLatencySensitivity switchLatencySensitivity() {
        return SwitchLatencySensitivity.LOW;
    }

    @Override
    public void setup(WorkloadContext context) {
        var x = context.randomBuffer(256, DType.FP32, 1);
        var stream = context.streams().getFirst();
        relu = context.op("vec_relu", stream, context.kernels("elementwise.cu").prepare("vec_relu",
                new Dim3(1, 1, 1), new Dim3(256, 1, 1), 0, stream, KernelArg.pointer(x), KernelArg.i32(256)));
    }

    @Override
    public void beforeMeasuredIterations() {
        measuring = true;
    }

    @Override
    public void afterMeasuredIterations() {
        measuring = false;
    }

    @Override
    public void runIteration(int iteration) {
        if (measuring && iteration == FAIL_AT) {
            throw new IllegalStateException("boom at " + FAIL_AT);
        }
        relu.run();
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput(iterations / (totalTimeMs / 1e3), "iterations/s");
    }

    @Override
    public void cleanup() {
        relu = null;
    }
}
