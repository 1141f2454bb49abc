package dev.aorta.model;

/**
 * Linear warmup then linear decay: for step s (counted from 0) of {@code totalSteps},
 * lr = maxLr·(s+1)/warmup while s &lt; warmup, then falls linearly from maxLr at s = warmup to minLr at
 * s = totalSteps - 1. The warmup starts above zero so that the first step already moves the weights.
 */
public record LrSchedule(double maxLr, double minLr, int warmupSteps, int totalSteps) {

    public LrSchedule {
        if (warmupSteps < 0 || totalSteps <= 0 || warmupSteps > totalSteps || maxLr < 0 || minLr < 0) {
            throw new IllegalArgumentException("lr schedule: need 0 <= warmup (" + warmupSteps + ") <= total ("
                    + totalSteps + ") and non-negative rates (max " + maxLr + ", min " + minLr + ")");
        }
    }

    public double lr(int step) {
        if (step < 0 || step >= totalSteps) {
            throw new IllegalArgumentException("lr schedule: step " + step + " outside [0, " + totalSteps + ")");
        }
        if (step < warmupSteps) {
            return maxLr * (step + 1) / warmupSteps;
        }
        int decaySteps = totalSteps - 1 - warmupSteps;
        if (decaySteps == 0) {
            return maxLr;
        }
        double frac = (double) (step - warmupSteps) / decaySteps;
        return maxLr + frac * (minLr - maxLr);
    }
}
