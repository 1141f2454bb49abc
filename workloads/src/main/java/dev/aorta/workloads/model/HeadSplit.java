package dev.aorta.workloads.model;

/**
 * Megatron's tensor-parallel split of a multi-head attention layer (nn.MultiheadAttention's fused q/k/v
 * in-projection [3·dim, dim] with q, k, v stacked by rows, out-projection [dim, dim]) over a group of {@code ranks}:
 * rank r holds heads [r·H/p, (r+1)·H/p), which are contiguous features [r·L, (r+1)·L) of q, k and v with
 * L = dim/p. Its in-projection is those rows of each of q, k and v (column-parallel), its out-projection the
 * columns that read them (row-parallel); summing the ranks' out-projections (an all-reduce) gives the layer's output,
 * so the bias of the out-projection belongs to rank 0 alone.
 */
record HeadSplit(int dim, int heads, int ranks) {
    HeadSplit {
        if (ranks <= 0 || heads % ranks != 0 || dim % heads != 0) {
            throw new IllegalArgumentException(heads + " heads of " + dim + " features do not split into " + ranks
                    + " tensor-parallel ranks of whole heads");
        }
    }

    /** Heads per rank. */
    int localHeads() {
        return heads / ranks;
    }

    /** Features per rank in each of q, k and v: L = localHeads · headDim. */
    int localWidth() {
        return dim / ranks;
    }

    /** Rank r's rows of the in-projection's weight [3·dim, dim]: [3·L, dim], q's rows, then k's, then v's. */
    float[] inProjWeight(float[] w, int rank) {
        int l = localWidth();
        float[] mine = new float[3 * l * dim];
        for (int part = 0; part < 3; part++) {
            System.arraycopy(w, (part * dim + rank * l) * dim, mine, part * l * dim, l * dim);
        }
        return mine;
    }

    /** Rank r's entries of the in-projection's bias [3·dim]: [3·L]. */
    float[] inProjBias(float[] b, int rank) {
        int l = localWidth();
        float[] mine = new float[3 * l];
        for (int part = 0; part < 3; part++) {
            System.arraycopy(b, part * dim + rank * l, mine, part * l, l);
        }
        return mine;
    }

    /** Rank r's columns of the out-projection's weight [dim, dim]: [dim, L]. */
    float[] outProjWeight(float[] w, int rank) {
        int l = localWidth();
        float[] mine = new float[dim * l];
        for (int o = 0; o < dim; o++) {
            System.arraycopy(w, o * dim + rank * l, mine, o * l, l);
        }
        return mine;
    }

    /** The out-projection's bias as rank r adds it: the whole bias on rank 0, zeros elsewhere (the sum counts it once). */
    float[] outProjBias(float[] b, int rank) {
        return rank == 0 ? b.clone() : new float[b.length];
    }
}
