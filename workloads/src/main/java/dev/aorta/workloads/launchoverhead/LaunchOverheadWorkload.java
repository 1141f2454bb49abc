package dev.aorta.workloads.launchoverhead;

import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.StreamRange;
import dev.aorta.workloads.spi.SwitchLatencySensitivity;
import dev.aorta.workloads.spi.Throughput;
import dev.aorta.workloads.spi.Workload;
import dev.aorta.workloads.spi.WorkloadContext;
import dev.aorta.workloads.spi.WorkloadParameter;

import java.util.List;
import java.util.Optional;

/**
 * launch_overhead under the harness ({@code sweep}, {@code run-priority}): one iteration is one step of a single-rank
 * pattern on the run's one stream, so its latency is ms/step in device time. A step ends by waiting for its stream
 * (and balanced reads a count back per centroid), like the seed's step: this workload is about that round trip,
 * so unlike the others its iterations wait for the device. {@code aorta run launch_overhead} and
 * {@code aorta launch-overhead} run the fixed-duration version with PCIe sampling and the collective patterns.
 */
public final class LaunchOverheadWorkload implements Workload {
    public static final String NAME = "launch_overhead";

    private WorkloadContext context;
    private CodebookDevice device;
    private boolean balanced;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Codebook assignment steps that launch tiny kernels back to back and read sizes back: host launch "
                + "and sync cost per step";
    }

    @Override
    public String category() {
        return "launch";
    }

    @Override
    public Priority priority() {
        return Priority.UNTIERED;
    }

    /** Every launch of a step depends on the previous one: one stream. */
    @Override
    public StreamRange streamRange() {
        return new StreamRange(1, 1);
    }

    @Override
    public int recommendedStreams() {
        return 1;
    }

    @Override
    public SwitchLatencySensitivity switchLatencySensitivity() {
        return SwitchLatencySensitivity.LOW;
    }

    @Override
    public List<WorkloadParameter> parameters() {
        return List.of(
                WorkloadParameter.choice("pattern", "argmin", "argmin (22 launches per step at the seed's shape) or "
                        + "balanced (147,478 launches and 24,577 read-backs; seconds per step)", "argmin", "balanced"),
                WorkloadParameter.positive("centroids", "8192", "K, centroids per codebook"),
                WorkloadParameter.positive("dim", "50", "D, coordinates per point"),
                WorkloadParameter.positive("batch", "8192", "N, points per step; a multiple of centroids"),
                WorkloadParameter.positive("stages", "3", "residual stages per step"));
    }

    @Override
    public void setup(WorkloadContext ctx) {
        this.context = ctx;
        CodebookShape shape = new CodebookShape(ctx.intParameter("centroids"), ctx.intParameter("dim"),
                ctx.intParameter("batch"), ctx.intParameter("stages"));
        balanced = ctx.choiceParameter("pattern").equals("balanced");
        device = new CudaCodebookDevice(ctx.gpu(), CodebookProblem.random(shape, 1), ctx.streams().getFirst());
    }

    @Override
    public void runIteration(int iteration) {
        if (balanced) {
            CodebookSteps.balanced(device);
        } else {
            CodebookSteps.argmin(device);
        }
    }

    @Override
    public Throughput throughput(int iterations, double totalTimeMs) {
        return new Throughput(iterations / (totalTimeMs / 1e3), "steps/s");
    }

    @Override
    public boolean hasCorrectnessCheck() {
        return true;
    }

    /** The launch-overhead check on its small shape: argmin against float64, balanced w points per centroid. */
    @Override
    public Optional<String> correctnessProblem() {
        CorrectnessCheck.Result r = CorrectnessCheck.run(p -> new CudaCodebookDevice(context.gpu(), p), 1);
        if (r.passed()) {
            return Optional.empty();
        }
        return Optional.of(r.argminProblem() != null ? "argmin: " + r.argminProblem() : "balanced: " + r.balancedProblem());
    }

    @Override
    public void cleanup() {
        if (device != null) {
            device.close();
            device = null;
        }
    }
}
