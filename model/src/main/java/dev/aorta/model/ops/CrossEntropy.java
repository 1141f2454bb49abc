package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

/**
 * torch.nn.functional.cross_entropy(logits [rows, classes], target [rows] (i32), reduction="mean",
 * ignore_index): the mean over counted rows of logsumexp - logit of the target. Rows whose target is
 * ignoreIndex (or outside [0, classes), where torch would fail) are not counted; with none counted the loss is
 * NaN, as torch's. The forward pass keeps each row's logsumexp and, in {@code stats} [2], the loss and the
 * number of counted rows, so the backward pass runs without a host sync.
 */
public final class CrossEntropy {
    private static final String OP = "cross entropy";

    private final OpContext ctx;

    public CrossEntropy(OpContext ctx) {
        this.ctx = ctx;
    }

    /** stats[0] = the loss, stats[1] = counted rows; lse [rows] and rowLoss [rows] are written for backward. */
    public void forward(Tensor logits, Tensor target, int ignoreIndex, Tensor lse, Tensor rowLoss, Tensor stats,
                        Stream s) {
        int rows = check(logits, target, lse, stats);
        Shapes.require(OP, "rowLoss", rowLoss, rows);
        Shapes.requireDtype(OP, "rowLoss", rowLoss, DType.FP32);
        int classes = logits.dim(1);
        ctx.kernels().launch("loss.cu", "cross_entropy_rows", rows, 256, s, logits, target, lse, rowLoss, classes,
                ignoreIndex);
        ctx.kernels().launch("loss.cu", "cross_entropy_mean", 1, 256, s, rowLoss, target, stats, rows, classes,
                ignoreIndex);
    }

    /** dlogits (overwritten) = dloss·(softmax - onehot(target)) / counted rows, zero on ignored rows. */
    public void backward(Tensor logits, Tensor target, int ignoreIndex, Tensor lse, Tensor stats, float dloss,
                         Tensor dlogits, Stream s) {
        check(logits, target, lse, stats);
        Shapes.requireSame(OP, "logits", logits, "dlogits", dlogits);
        Shapes.requireDtype(OP, "dlogits", dlogits, DType.FP32);
        Shapes.requireContiguous(OP, "dlogits", dlogits);
        ctx.kernels().launch("loss.cu", "cross_entropy_backward", ctx.kernels().gridFor(logits.numel(), 256), 256, s,
                logits, target, lse, stats, dlogits, logits.numel(), logits.dim(1), ignoreIndex, dloss);
    }

    private static int check(Tensor logits, Tensor target, Tensor lse, Tensor stats) {
        Shapes.requireRank(OP, "logits", logits, 2);
        Shapes.requireDtype(OP, "logits", logits, DType.FP32);
        Shapes.requireContiguous(OP, "logits", logits);
        int rows = logits.dim(0);
        Shapes.require(OP, "target", target, rows);
        Shapes.requireDtype(OP, "target", target, DType.I32);
        Shapes.require(OP, "lse", lse, rows);
        Shapes.requireDtype(OP, "lse", lse, DType.FP32);
        Shapes.require(OP, "stats", stats, 2);
        Shapes.requireDtype(OP, "stats", stats, DType.FP32);
        return rows;
    }
}
