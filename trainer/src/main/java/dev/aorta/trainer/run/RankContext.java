package dev.aorta.trainer.run;

import dev.aorta.gpu.nccl.NcclUniqueId;

import java.time.Duration;

/**
 * Where a rank of a data-parallel run stands: its rank and local rank (its GPU), the world, the ranks per node
 * (hybrid_shard's default group), the NCCL id of the world communicator, which rank 0 made and every rank got, and
 * how long a step may wait on the device before the rank gives its peers up ({@code --comm-timeout}).
 */
public record RankContext(int rank, int worldSize, int localRank, int localWorldSize, NcclUniqueId worldId,
                          Duration commTimeout) {
    public RankContext {
        if (worldSize < 1 || rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("rank " + rank + " is outside the world of " + worldSize + " ranks");
        }
        if (localRank < 0 || localRank >= localWorldSize) {
            throw new IllegalArgumentException("local rank " + localRank + " is outside the " + localWorldSize
                    + " ranks of this node");
        }
    }
}
