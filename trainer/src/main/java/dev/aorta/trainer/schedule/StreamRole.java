package dev.aorta.trainer.schedule;

/**
 * The trainer's four streams, named as in AORTA's metrics file: compute (forward, backward, optimizer), allreduce
 * (all-reduces: hybrid_shard's cross-node step, no_shard and DDP gradients, the gradient norm), reducescatter
 * (gradient reduce-scatters), aux (the batch's host-to-device copy and the parameter all-gathers). Gathers and
 * reductions get separate streams so that a prefetching gather never queues behind a gradient reduction.
 */
public enum StreamRole {
    COMPUTE("compute"), ALLREDUCE("allreduce"), REDUCESCATTER("reducescatter"), AUX("aux");

    private final String label;

    StreamRole(String label) {
        this.label = label;
    }

    /** The stream's name in the metrics file. */
    public String label() {
        return label;
    }
}
