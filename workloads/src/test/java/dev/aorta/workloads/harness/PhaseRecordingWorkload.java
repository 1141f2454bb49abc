package dev.aorta.workloads.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** tiny_kernel_stress that writes down, in order, every call the harness makes into it during a run. */
final class PhaseRecordingWorkload extends TinyKernelStressWrapper {
    final List<String> calls = new ArrayList<>();

    @Override
    public void runIteration(int iteration) {
        calls.add("iteration " + iteration);
        super.runIteration(iteration);
    }

    @Override
    public void beforeMeasuredIterations() {
        calls.add("before measured");
    }

    @Override
    public void afterMeasuredIterations() {
        calls.add("after measured");
    }

    @Override
    public boolean hasCorrectnessCheck() {
        return true;
    }

    @Override
    public Optional<String> correctnessProblem() {
        calls.add("check");
        return inner.correctnessProblem();
    }
}
