package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

/**
 * torch.nn.BCEWithLogitsLoss(weight, pos_weight, reduction="mean") on logits and targets [rows, cols]; weight
 * and posWeight are [cols] (broadcast over rows) or null. The loss is one fp32 value in a [1] tensor, summed
 * in a fixed order (the same bits every run).
 */
public final class BceWithLogits {
    private static final String OP = "bce with logits";

    private final OpContext ctx;

    public BceWithLogits(OpContext ctx) {
        this.ctx = ctx;
    }

    public void forward(Tensor logits, Tensor targets, Tensor weight, Tensor posWeight, Tensor loss, Stream s) {
        check(logits, targets, weight, posWeight);
        Shapes.require(OP, "loss", loss, 1);
        Shapes.requireDtype(OP, "loss", loss, DType.FP32);
        ctx.kernels().launch("loss.cu", "bce_forward", 1, 256, s, logits, targets, weight, posWeight, loss,
                logits.numel(), logits.dim(1));
    }

    /** dlogits = dloss·∂(mean loss)/∂logits; dloss is the upstream gradient (1 for a plain loss). */
    public void backward(Tensor logits, Tensor targets, Tensor weight, Tensor posWeight, float dloss,
                         Tensor dlogits, Stream s) {
        check(logits, targets, weight, posWeight);
        Shapes.requireSame(OP, "logits", logits, "dlogits", dlogits);
        Shapes.requireDtype(OP, "dlogits", dlogits, DType.FP32);
        Shapes.requireContiguous(OP, "dlogits", dlogits);
        ctx.kernels().launch("loss.cu", "bce_backward", ctx.kernels().gridFor(logits.numel(), 256), 256, s, logits,
                targets, weight, posWeight, dlogits, logits.numel(), logits.dim(1), dloss);
    }

    private static void check(Tensor logits, Tensor targets, Tensor weight, Tensor posWeight) {
        Shapes.requireRank(OP, "logits", logits, 2);
        Shapes.requireDtype(OP, "logits", logits, DType.FP32);
        Shapes.requireContiguous(OP, "logits", logits);
        Shapes.requireSame(OP, "logits", logits, "targets", targets);
        Shapes.requireDtype(OP, "targets", targets, DType.FP32);
        Shapes.requireContiguous(OP, "targets", targets);
        for (Tensor w : new Tensor[] {weight, posWeight}) {
            if (w != null) {
                String name = w == weight ? "weight" : "pos_weight";
                Shapes.require(OP, name, w, logits.dim(1));
                Shapes.requireDtype(OP, name, w, DType.FP32);
            }
        }
    }
}
