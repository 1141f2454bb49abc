package dev.aorta.workloads.harness;

/**
 * tiny_kernel_stress with device work in {@link #beforeMeasuredIterations()}, like the collective workloads'
 * barrier all-reduce: one more iteration's kernels right before the measured loop.
 */
final class AligningWorkload extends TinyKernelStressWrapper {
    @Override
    public void beforeMeasuredIterations() {
        inner.runIteration(0);
    }
}
