package dev.aorta.trainer.schedule;

import dev.aorta.trainer.plan.Collective;

import java.util.List;

/**
 * One operation of a step, in host issue order ({@code index}). It runs after the previous operation on its
 * stream and after every operation in {@code waits} (a CUDA event recorded after that operation, waited on by this
 * stream just before this operation is issued); {@code waits} only name earlier operations on other streams.
 *
 * @param target     what it works on: a unit ("root", "layers.3"), a block ("stem", "head", "layers.3"), a
 *                   gradient bucket ("bucket.2"), "batch", "grad_norm", or "" for step-wide operations
 * @param phase      FORWARD or BACKWARD for the operations of a pass (a gather belongs to the pass it serves),
 *                   STEP otherwise
 * @param collective what a collective moves, null for other operations
 */
public record ScheduledOp(int index, OpKind kind, StreamRole stream, String target, int microBatch, Phase phase,
                          Collective collective, List<Integer> waits) {
    public enum Phase { FORWARD, BACKWARD, STEP }

    public ScheduledOp {
        waits = List.copyOf(waits);
    }

    public boolean isCollective() {
        return collective != null;
    }

    @Override
    public String toString() {
        return index + ":" + kind + "(" + target + (phase == Phase.STEP ? "" : " " + phase.name().toLowerCase())
                + " mb" + microBatch + ")@" + stream.label() + (waits.isEmpty() ? "" : " waits " + waits);
    }
}
