package dev.aorta.workloads.harness;

import dev.aorta.workloads.p0.TinyKernelStress;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.Workload;
import dev.aorta.workloads.spi.WorkloadContext;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.util.List;

/** tiny_kernel_stress behind the harness's interface, for test workloads that change one part of it. */
abstract class TinyKernelStressWrapper implements Workload {
    protected final TinyKernelStress inner = new TinyKernelStress();

    @Override public String name() { return inner.name(); }
    @Override public String description() { return inner.description(); }
    @Override public String category() { return inner.category(); }
    @Override public Priority priority() { return inner.priority(); }
    @Override public StreamRange streamRange() { return inner.streamRange(); }
    @Override public int recommendedStreams() { return inner.recommendedStreams(); }
    @Override public SwitchLatencySensitivity switchLatencySensitivity() { return inner.switchLatencySensitivity(); }
    @Override public List<WorkloadParameter> parameters() { return inner.parameters(); }
    @Override public void setup(WorkloadContext context) { inner.setup(context); }
    @Override public void runIteration(int iteration) { inner.runIteration(iteration); }
    @Override public Throughput throughput(int iterations, double totalTimeMs) { return inner.throughput(iterations, totalTimeMs); }
    @Override public void cleanup() { inner.cleanup(); }
}
