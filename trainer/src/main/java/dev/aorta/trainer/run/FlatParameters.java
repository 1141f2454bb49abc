package dev.aorta.trainer.run;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.ParameterStorage;
import dev.aorta.model.Shapes;
import dev.aorta.model.Tensor;
import dev.aorta.model.ops.Parameter;
import dev.aorta.trainer.plan.FlatUnit;
import dev.aorta.trainer.step.Arena;
import dev.aorta.trainer.step.RankLayout;
import dev.aorta.trainer.step.Region;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A rank's flat parameter and gradient buffers, one per sharding unit, and the model's parameters as views into
 * them (this is the model's {@link ParameterStorage}): each parameter's value is its slot in the unit's gathered
 * buffer and its gradient the slot in the unit's local gradient buffer, so one collective moves a whole unit and
 * the layers compute from it unchanged. When the rank holds shards, it also has the fp32 master shard and the
 * reduced gradient shard of each unit.
 *
 * <p>The gathered buffers stay allocated for the whole run: the model's views need fixed addresses. A FREE in
 * the schedule therefore orders the buffer's reuse (the next gather waits for it) without returning its memory.
 */
final class FlatParameters implements ParameterStorage, AutoCloseable {
    private static final String OP = "flat parameters";

    private final RankLayout layout;
    private final Tensor[] params;
    private final Tensor[] grads;
    private final Tensor[] shardParams;
    private final Tensor[] shardGrads;
    private final List<List<Parameter>> modelParameters = new ArrayList<>();
    private Tensor gradNorm;

    FlatParameters(OpContext ctx, RankLayout layout, Stream s) {
        this.layout = layout;
        int n = layout.plan().units().size();
        params = new Tensor[n];
        grads = new Tensor[n];
        shardParams = new Tensor[n];
        shardGrads = new Tensor[n];
        for (int u = 0; u < n; u++) {
            FlatUnit unit = layout.plan().units().get(u);
            params[u] = ctx.empty(OP, unit.name() + " parameters", DType.FP32, Math.toIntExact(unit.paddedNumel()));
            grads[u] = ctx.empty(OP, unit.name() + " gradients", DType.FP32, Math.toIntExact(unit.paddedNumel()));
            // alignment gaps and padding: zero once, and nothing writes them but the collectives (zeros in, zeros out)
            params[u].zero(s);
            grads[u].zero(s);
            if (layout.sharded()) {
                int shard = Math.toIntExact(unit.shardNumel());
                shardParams[u] = ctx.empty(OP, unit.name() + " parameter shard", DType.FP32, shard);
                shardGrads[u] = ctx.empty(OP, unit.name() + " gradient shard", DType.FP32, shard);
            }
            modelParameters.add(new ArrayList<>());
        }
        // the layers initialise their parameters with synchronous copies, which are not ordered after work on a
        // non-blocking stream: the zeroing must be done before they write
        s.synchronize();
    }

    @Override
    public Parameter create(OpContext ctx, String op, String name, int... shape) {
        RankLayout.Located at = layout.locate(name);
        long numel = at.slot().param().numel();
        if (Shapes.numel(shape) != numel) {
            throw new IllegalArgumentException(op + " creates parameter " + name + " of shape " + Shapes.format(shape)
                    + ", but the sharding plan lays it out with " + numel + " elements");
        }
        int offset = Math.toIntExact(at.slot().offset());
        int count = Math.toIntExact(numel);
        Parameter p = new Parameter(name, params[at.unit()].slice(0, offset, count).view(shape),
                grads[at.unit()].slice(0, offset, count).view(shape));
        modelParameters.get(at.unit()).add(p);
        return p;
    }

    /** Refuses a model that left parameters of the plan uncreated: the model and the plan must list the same. */
    void requireEveryParameterCreated() {
        for (FlatUnit unit : layout.plan().units()) {
            int created = modelParameters.get(layout.unitIndex(unit)).size();
            if (created != unit.slots().size()) {
                throw new IllegalStateException("the model created " + created + " of the " + unit.slots().size()
                        + " parameters the sharding plan lays out in unit " + unit.name()
                        + " (ModelParameters and the model disagree)");
            }
        }
    }

    /** The model's parameters in {@code unit}: their 16-bit copies go stale when the unit is gathered again. */
    List<Parameter> modelParameters(FlatUnit unit) {
        return modelParameters.get(layout.unitIndex(unit));
    }

    /**
     * The parameters the optimizer steps: the model's own when the rank owns whole units (so that AdamW sees the
     * same tensors as on one GPU, and keeps their 16-bit copies current), else the pieces of each parameter in the
     * rank's shards.
     */
    List<Parameter> optimizerParameters(List<Parameter> model) {
        if (!layout.sharded()) {
            return model;
        }
        List<Parameter> out = new ArrayList<>();
        for (FlatUnit unit : layout.plan().units()) {
            for (RankLayout.OwnedPiece piece : layout.ownedPieces(unit)) {
                out.add(new Parameter(piece.param().name() + "[" + piece.paramOffset() + ":]", view(piece.params()),
                        view(piece.grads())));
            }
        }
        return out;
    }

    /**
     * Copies the rank's part of the model's initial values (written into the gathered buffers by the layers'
     * initialisation or a weights file) into its master shards; a synchronous host round trip, once.
     */
    void keepOwnShards() {
        if (!layout.sharded()) {
            return;
        }
        for (FlatUnit unit : layout.plan().units()) {
            int u = layout.unitIndex(unit);
            long start = layout.ownedRange(unit).start();
            shardParams[u].copyFrom(params[u].slice(0, Math.toIntExact(start), Math.toIntExact(unit.shardNumel()))
                    .toHost());
        }
    }

    /** Sets every local gradient to zero on {@code s}. */
    void zeroGrads(Stream s) {
        for (Tensor g : grads) {
            g.zero(s);
        }
    }

    /** The optimizer's norm tensor: where {@link Arena#GRAD_NORM} is. */
    void gradNorm(Tensor norm) {
        this.gradNorm = norm;
    }

    /** The device address of a region's first element. */
    long address(Region r) {
        Tensor t = switch (r.arena()) {
            case PARAMS -> params[r.unit()];
            case GRADS -> grads[r.unit()];
            case SHARD_PARAMS -> shardParams[r.unit()];
            case SHARD_GRADS -> shardGrads[r.unit()];
            case GRAD_NORM -> gradNorm;
        };
        if (t == null) {
            throw new IllegalStateException("no " + r.arena() + " buffer on rank " + layout.rank());
        }
        if (r.end() > t.numel()) {
            throw new IllegalArgumentException(r + " is outside its buffer of " + t.numel() + " elements");
        }
        return t.address() + r.offset() * Float.BYTES;
    }

    private Tensor view(Region r) {
        Tensor base = r.arena() == Arena.SHARD_PARAMS ? shardParams[r.unit()] : shardGrads[r.unit()];
        return base.slice(0, Math.toIntExact(r.offset()), Math.toIntExact(r.count()));
    }

    @Override
    public void close() {
        for (Tensor[] ts : List.of(params, grads, shardParams, shardGrads)) {
            Arrays.stream(ts).filter(t -> t != null).forEach(Tensor::close);
        }
    }
}
