package dev.aorta.trainer.plan;

/**
 * A piece of the model that runs as one forward and one backward operation: the stem (embedding, the two input
 * projections), encoder layer {@code layer}, or the head (final LayerNorm, scorer, loss). A parameter's gradient is
 * complete when its block's backward has run.
 */
public record Block(Kind kind, int layer) {
    public enum Kind { STEM, LAYER, HEAD }

    public static final Block STEM = new Block(Kind.STEM, -1);
    public static final Block HEAD = new Block(Kind.HEAD, -1);

    public static Block layer(int i) {
        return new Block(Kind.LAYER, i);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case STEM -> "stem";
            case HEAD -> "head";
            case LAYER -> "layers." + layer;
        };
    }
}
