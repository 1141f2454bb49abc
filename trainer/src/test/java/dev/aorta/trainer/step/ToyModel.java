package dev.aorta.trainer.step;

import dev.aorta.trainer.plan.Block;
import dev.aorta.trainer.plan.FlatUnit;
import dev.aorta.trainer.plan.ShardingPlan;

/**
 * A host model over the plan's parameters whose gradient depends on the parameter values seen by both passes
 * and on the rank's batch, so that a rank computing from a wrong, stale or freed gather, or a reduction over the
 * wrong ranks or elements, ends with a different gradient. For parameter element e of block b, micro-batch m of
 * k on rank r at step s:
 * <pre>
 *   forward:  S_b = sum of b's parameter values
 *   backward: grad_e += (p_e · x(r, s, m) + S_b · eps(e)) / k
 * </pre>
 * and the optimizer is clipped SGD: p -= lr · min(1, clip / (norm + 1e-6)) · grad. {@link #reference} runs
 * that on the whole, unsharded model with the mean gradient over ranks: what every sharded run must match.
 */
final class ToyModel {
    static final double LR = 0.05;

    private ToyModel() {
    }

    static float initial(int unit, long element) {
        return (float) (0.5 * Math.sin(0.37 * element + 1.3 * unit));
    }

    static float batchValue(int rank, int step, int microBatch) {
        return (float) (1 + 0.25 * rank + 0.125 * microBatch + 0.0625 * step);
    }

    static float eps(long element) {
        return (float) (1e-3 * (element % 7 - 3));
    }

    /** Unit buffers with the initial parameter values (zero in alignment gaps and padding). */
    static float[][] initialParameters(ShardingPlan plan) {
        float[][] p = new float[plan.units().size()][];
        for (int u = 0; u < p.length; u++) {
            FlatUnit unit = plan.units().get(u);
            p[u] = new float[(int) unit.paddedNumel()];
            for (FlatUnit.Slot s : unit.slots()) {
                for (long e = s.offset(); e < s.offset() + s.param().numel(); e++) {
                    p[u][(int) e] = initial(u, e);
                }
            }
        }
        return p;
    }

    static double blockSum(FlatUnit unit, float[] values, Block block) {
        double sum = 0;
        for (FlatUnit.Slot s : unit.slots()) {
            if (s.param().block().equals(block)) {
                for (long e = s.offset(); e < s.offset() + s.param().numel(); e++) {
                    sum += values[(int) e];
                }
            }
        }
        return sum;
    }

    static Block[] blocksOf(FlatUnit unit) {
        return unit.isRoot() ? new Block[] {Block.STEM, Block.HEAD} : new Block[] {Block.layer(unit.layer())};
    }

    /** What the unsharded run ends with: parameters, last step's gradients, and each step's norm. */
    record Result(float[][] parameters, double[][] lastGradients, double[] norms) {
    }

    static Result reference(ShardingPlan plan, int world, int microBatches, int steps, double clip) {
        float[][] p = initialParameters(plan);
        double[][] g = null;
        double[] norms = new double[steps];
        for (int s = 0; s < steps; s++) {
            g = new double[p.length][];
            double squares = 0;
            for (int u = 0; u < p.length; u++) {
                FlatUnit unit = plan.units().get(u);
                g[u] = new double[p[u].length];
                for (Block b : blocksOf(unit)) {
                    double sum = blockSum(unit, p[u], b);
                    for (FlatUnit.Slot slot : unit.slots()) {
                        if (!slot.param().block().equals(b)) {
                            continue;
                        }
                        for (long e = slot.offset(); e < slot.offset() + slot.param().numel(); e++) {
                            double acc = 0;
                            for (int r = 0; r < world; r++) {
                                for (int m = 0; m < microBatches; m++) {
                                    acc += ((double) p[u][(int) e] * batchValue(r, s, m) + sum * eps(e)) / microBatches;
                                }
                            }
                            g[u][(int) e] = acc / world;
                            squares += g[u][(int) e] * g[u][(int) e];
                        }
                    }
                }
            }
            norms[s] = Math.sqrt(squares);
            double c = clip > 0 ? Math.min(1, clip / (norms[s] + 1e-6)) : 1;
            for (int u = 0; u < p.length; u++) {
                for (int e = 0; e < p[u].length; e++) {
                    p[u][e] -= (float) (LR * c * g[u][e]);
                }
            }
        }
        return new Result(p, g, norms);
    }
}
