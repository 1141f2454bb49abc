package dev.aorta.model;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.ops.AdamW;

/**
 * Dynamic loss scaling for fp16 autocast, torch.amp.GradScaler's rule: the loss gradient is multiplied by
 * {@link #scale()} so that small gradients survive fp16; a step whose gradients overflowed (an inf or NaN
 * anywhere: the global norm is not finite) is skipped and the scale multiplied by the backoff factor; after
 * {@code growthInterval} clean steps in a row the scale grows by the growth factor. The optimizer divides the
 * gradients by the scale as it reads them.
 */
public final class LossScaler {
    private final double growthFactor;
    private final double backoffFactor;
    private final int growthInterval;
    private double scale;
    private int cleanSteps;

    public LossScaler(double initScale, double growthFactor, double backoffFactor, int growthInterval) {
        if (!(initScale > 0) || !(growthFactor > 1) || !(backoffFactor > 0 && backoffFactor < 1)
                || growthInterval < 1) {
            throw new IllegalArgumentException("loss scaler: need initScale > 0, growthFactor > 1, backoffFactor in"
                    + " (0, 1) and growthInterval >= 1; got " + initScale + ", " + growthFactor + ", " + backoffFactor
                    + ", " + growthInterval);
        }
        this.scale = initScale;
        this.growthFactor = growthFactor;
        this.backoffFactor = backoffFactor;
        this.growthInterval = growthInterval;
    }

    /** torch.amp.GradScaler's defaults: 2^16, ×2 after 2000 clean steps, ×0.5 on overflow. */
    public static LossScaler torchDefaults() {
        return new LossScaler(65536, 2, 0.5, 2000);
    }

    /** The factor for the loss gradient of the coming backward pass. */
    public float scale() {
        return (float) scale;
    }

    /**
     * Records one step's outcome and adjusts the scale; returns whether the step is to be applied (false when
     * the gradients overflowed).
     */
    public boolean update(boolean overflow) {
        if (overflow) {
            scale *= backoffFactor;
            cleanSteps = 0;
            return false;
        }
        if (++cleanSteps == growthInterval) {
            scale *= growthFactor;
            cleanSteps = 0;
        }
        return true;
    }

    /**
     * The optimizer step of a backward pass run with {@link #scale()}: computes the global norm of the scaled
     * gradients, reads it (this waits for the device, as GradScaler's inf check does), and steps with the
     * gradients unscaled unless they overflowed. Returns whether the step was applied.
     */
    public boolean step(AdamW opt, double lr, double maxNorm, Stream s) {
        float used = scale();
        opt.computeGradNorm(s);
        boolean overflow = !Float.isFinite(opt.gradNorm().toFloats()[0]);
        if (!overflow) {
            opt.step(lr, maxNorm, used, s);
        }
        return update(overflow);
    }
}
