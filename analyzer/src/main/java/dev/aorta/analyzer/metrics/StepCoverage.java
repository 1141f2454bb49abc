package dev.aorta.analyzer.metrics;

import dev.aorta.core.metric.IntervalSet;

import java.util.List;

/**
 * How much of a rank's device time its steps hold: {@code busyNs} = |C ∪ M ∪ Y| over the whole trace,
 * {@code inNoStepNs} = the part of it outside every step window. Work before the first or after the last
 * profiled step is in no step; so is, when steps are host ranges, device work that runs after its step's host code
 * ended and before the next step began.
 *
 * @param steps                  the rank's step windows
 * @param stepsWithoutDeviceWork steps that launched no device work ({@link Window.Basis#HOST_NO_DEVICE_WORK})
 */
public record StepCoverage(int rank, long busyNs, long inNoStepNs, int steps, int stepsWithoutDeviceWork) {

    /** Null when {@code windows} holds no step. */
    static StepCoverage of(int rank, ClassIntervals unions, List<Window> windows) {
        List<Window> steps = windows.stream().filter(w -> w.kind() == Window.Kind.STEP).toList();
        if (steps.isEmpty()) {
            return null;
        }
        IntervalSet busy = unions.compute().union(unions.communication()).union(unions.memory());
        long[] starts = steps.stream().mapToLong(Window::startNs).toArray();
        long[] ends = steps.stream().mapToLong(Window::endNs).toArray();
        IntervalSet stepTime = IntervalSet.union(starts, ends, starts.length);
        int idle = (int) steps.stream().filter(w -> w.basis() == Window.Basis.HOST_NO_DEVICE_WORK).count();
        return new StepCoverage(rank, busy.length(), busy.minus(stepTime).length(), steps.size(), idle);
    }

    /** The fraction of the device busy time in no step; undefined (null) without device work. */
    public Double inNoStepFraction() {
        return busyNs == 0 ? null : (double) inNoStepNs / busyNs;
    }
}
