package dev.aorta.workloads.launchoverhead;

/**
 * Size of the codebook assignment: {@code batch} points of {@code dim} coordinates are quantized in
 * {@code stages} residual stages, each with its own codebook of {@code centroids} centroids. The balanced
 * pattern gives every centroid exactly {@link #rowsPerCentroid()} points per stage.
 */
public record CodebookShape(int centroids, int dim, int batch, int stages) {
    /** The seed's size: K=8192 centroids, D=50, batch 8192, 3 stages. */
    public static final CodebookShape SEED = new CodebookShape(8192, 50, 8192, 3);

    public CodebookShape {
        requirePositive("--centroids", centroids);
        requirePositive("--dim", dim);
        requirePositive("--batch", batch);
        requirePositive("--stages", stages);
        if (batch % centroids != 0) {
            throw new IllegalArgumentException("--batch " + batch + " must be a multiple of --centroids " + centroids
                    + ": the balanced pattern gives every centroid batch/centroids points");
        }
        if ((long) batch * centroids > Integer.MAX_VALUE || (long) batch * dim > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--batch x --centroids and --batch x --dim must stay below 2^31 elements, got "
                    + batch + " x " + centroids + " and " + batch + " x " + dim);
        }
    }

    private static void requirePositive(String option, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(option + " must be a positive integer, got " + value);
        }
    }

    /** w = batch / centroids: the points each centroid gets in the balanced pattern. */
    public int rowsPerCentroid() {
        return batch / centroids;
    }

    public String describe() {
        return "K=" + centroids + " centroids, D=" + dim + ", batch " + batch + ", " + stages + " stages";
    }
}
