package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.Init;
import dev.aorta.model.OpContext;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;

import java.util.List;

/**
 * Embedding lookup with mean pooling, torch.nn.EmbeddingBag(vocab, dim, mode="mean") on ids [bags, len]:
 * out [bags, dim] is the mean of the looked-up rows. The table starts N(0, 1), as PyTorch's does. The
 * backward pass scatter-adds into the table's gradient with atomics (repeated ids collide).
 */
public final class EmbeddingMeanPool implements Layer {
    private static final String OP = "embedding mean-pool";

    private final OpContext ctx;
    private final int vocab;
    private final int dim;
    private final Parameter table;

    public EmbeddingMeanPool(OpContext ctx, String name, int vocab, int dim, long seed) {
        this.ctx = ctx;
        this.vocab = vocab;
        this.dim = dim;
        this.table = ctx.newParameter(OP, name + ".weight", vocab, dim);
        table.init(() -> Init.normal(seed, table.name(), 1f, vocab, dim));
    }

    @Override
    public List<Parameter> parameters() {
        return List.of(table);
    }

    /** Ids must lie in [0, vocab): the kernel skips others rather than touch memory outside the table. */
    public void forward(Tensor ids, Tensor out, Stream s) {
        int bags = check(ids, "out", out);
        ctx.kernels().launch("embedding.cu", "embedding_mean_forward", bags, threads(), s, ids, table.value(), out,
                ids.dim(1), dim, vocab);
    }

    /** The table's gradient += the scatter of dout/len to each id's row. */
    public void backward(Tensor ids, Tensor dout, Stream s) {
        int bags = check(ids, "dout", dout);
        ctx.kernels().launch("embedding.cu", "embedding_mean_backward", bags * ids.dim(1), threads(), s, ids, dout,
                table.grad(), ids.dim(1), dim, vocab);
    }

    private int threads() {
        return Math.min(256, (dim + 31) / 32 * 32);
    }

    private int check(Tensor ids, String outName, Tensor out) {
        Shapes.requireDtype(OP, "ids", ids, DType.I32);
        Shapes.requireRank(OP, "ids", ids, 2);
        Shapes.requireContiguous(OP, "ids", ids);
        if (ids.dim(1) == 0 || ids.dim(0) == 0) {
            throw new IllegalArgumentException(OP + ": operand ids has shape " + Shapes.format(ids.shape())
                    + ", expected at least one bag of at least one id");
        }
        Shapes.require(OP, outName, out, ids.dim(0), dim);
        Shapes.requireDtype(OP, outName, out, DType.FP32);
        Shapes.requireContiguous(OP, outName, out);
        return ids.dim(0);
    }
}
