package dev.aorta.trainer.run;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.gpu.nccl.NcclComm;
import dev.aorta.gpu.nccl.NcclDataType;
import dev.aorta.gpu.nccl.NcclRedOp;
import dev.aorta.trainer.plan.Collective;
import dev.aorta.trainer.plan.ShardingPlan;
import dev.aorta.trainer.schedule.ScheduledOp;
import dev.aorta.trainer.step.RankCollectives;
import dev.aorta.trainer.step.Reduction;
import dev.aorta.trainer.step.Region;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The step's collectives on NCCL: the world communicator split (ncclCommSplit, key = world rank) into the rank's
 * shard group (color = shard group index) and replica group (color = index in the shard group), each issued on the
 * operation's stream over fp32 buffers. A group that is the whole world, or this rank alone, needs no split.
 *
 * <p>{@link #abortAll} may come from another thread while the owner is blocked on the device (a peer died): the
 * flag makes exactly one of abort and close free the native communicators.
 */
final class NcclCollectives implements RankCollectives, AutoCloseable {
    private final int rank;
    private final NcclComm world;
    private final NcclComm shard;
    private final NcclComm replica;
    private final TrainStreams streams;
    private final FlatParameters buffers;
    private final AtomicBoolean released = new AtomicBoolean();

    NcclCollectives(NcclComm world, ShardingPlan plan, int rank, TrainStreams streams, FlatParameters buffers) {
        this.rank = rank;
        this.world = world;
        this.streams = streams;
        this.buffers = buffers;
        int group = plan.shardGroupSize();
        // every rank calls split the same number of times in the same order, as NCCL requires
        this.shard = group == plan.worldSize() ? world : world.split(rank / group, rank);
        this.replica = group == 1 ? world : world.split(rank % group, rank);
    }

    /** The world communicator, for collectives outside the schedule (the injected stress). */
    NcclComm world() {
        return world;
    }

    private NcclComm comm(Collective.Group group) {
        return group == Collective.Group.SHARD ? shard : replica;
    }

    private Stream stream(ScheduledOp op) {
        return streams.get(op.stream());
    }

    private static NcclRedOp op(Reduction r) {
        return r == Reduction.MEAN ? NcclRedOp.AVG : NcclRedOp.SUM;
    }

    @Override
    public void allGather(ScheduledOp op, Region send, Region recv, Collective.Group group) {
        comm(group).allGather(buffers.address(send), buffers.address(recv), send.count(), NcclDataType.FLOAT32,
                stream(op));
    }

    @Override
    public void reduceScatter(ScheduledOp op, Region send, Region recv, Collective.Group group, Reduction reduction) {
        comm(group).reduceScatter(buffers.address(send), buffers.address(recv), recv.count(), NcclDataType.FLOAT32,
                op(reduction), stream(op));
    }

    @Override
    public void allReduce(ScheduledOp op, Region buffer, Collective.Group group, Reduction reduction) {
        long at = buffers.address(buffer);
        comm(group).allReduce(at, at, buffer.count(), NcclDataType.FLOAT32, op(reduction), stream(op));
    }

    /** The first asynchronous error any of the rank's communicators reports, naming the rank. */
    Optional<String> asyncError() {
        if (released.get()) {
            return Optional.empty();
        }
        for (NcclComm c : distinct()) {
            Optional<String> e = c.asyncError();
            if (e.isPresent()) {
                return Optional.of("rank " + rank + ": NCCL reported an error on a communicator of " + c.size()
                        + " ranks: " + e.get());
            }
        }
        return Optional.empty();
    }

    /** Stops the communicators' work now, so that a host blocked on the device returns. */
    void abortAll() {
        if (released.compareAndSet(false, true)) {
            distinct().forEach(NcclComm::abort);
        }
    }

    /** Children before the world, each once. */
    private List<NcclComm> distinct() {
        List<NcclComm> out = new ArrayList<>();
        for (NcclComm c : new NcclComm[] {shard, replica, world}) {
            if (!out.contains(c)) {
                out.add(c);
            }
        }
        return out;
    }

    @Override
    public void close() {
        if (released.compareAndSet(false, true)) {
            distinct().forEach(NcclComm::close);
        }
    }
}
