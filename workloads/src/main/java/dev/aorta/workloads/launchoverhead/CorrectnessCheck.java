package dev.aorta.workloads.launchoverhead;

import java.util.Optional;
import java.util.function.Function;

/**
 * Runs one argmin and one balanced step on a small problem through a {@link CodebookDevice} and compares
 * the assignments with {@link CodebookReference}: argmin equals the float64 nearest centroids (near-ties
 * aside), balanced gives every centroid exactly w points.
 */
public final class CorrectnessCheck {
    /** Small enough for a float64 reference in milliseconds, with w = 4 so that selection picks several. */
    public static final CodebookShape SHAPE = new CodebookShape(256, 50, 1024, 3);

    /** What the check found; a problem is null when that pattern was right. */
    public record Result(CodebookShape shape, String argminProblem, String balancedProblem) {
        public boolean passed() {
            return argminProblem == null && balancedProblem == null;
        }
    }

    private CorrectnessCheck() {
    }

    public static Result run(Function<CodebookProblem, CodebookDevice> devices, long seed) {
        CodebookProblem problem = CodebookProblem.random(SHAPE, seed);
        try (CodebookDevice device = devices.apply(problem)) {
            CodebookSteps.argmin(device);
            Optional<String> argmin = CodebookReference.checkArgmin(problem, assignments(device));
            CodebookSteps.balanced(device);
            Optional<String> balanced = CodebookReference.checkBalanced(SHAPE, assignments(device));
            return new Result(SHAPE, argmin.orElse(null), balanced.orElse(null));
        }
    }

    static int[][] assignments(CodebookDevice device) {
        int[][] all = new int[device.shape().stages()][];
        for (int s = 0; s < all.length; s++) {
            all[s] = device.assignments(s);
        }
        return all;
    }
}
