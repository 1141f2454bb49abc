package dev.aorta.trainer.plan;

import dev.aorta.trainer.config.ConfigException;
import dev.aorta.trainer.config.TrainerConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * Who holds, gathers and reduces which parameter bytes, for every rank: pure data, computed identically on every
 * rank from the parameter list and the world, so that no rank has to ask another.
 *
 * <p>Units: the root (stem and head parameters, which FSDP's root module wraps) and one per encoder layer. Ranks
 * form shard groups of {@link #shardGroupSize()} consecutive ranks (for hybrid_shard, one node: launchers number
 * ranks node by node); each shard group holds one copy of the parameters split into equal shards, and the ranks
 * with the same index in their shard groups form a replica group holding the same shard.
 * <ul>
 *   <li>full_shard, shard_grad_op: one shard group of all ranks; gradients reduce-scattered into the shards.</li>
 *   <li>hybrid_shard: shard groups of {@code hybrid_shard_gpus_per_node}; gradients reduce-scattered within the
 *       shard group, then the shard all-reduced across the replica group.</li>
 *   <li>no_shard: shard groups of one rank (every rank owns everything); gradients all-reduced per unit.</li>
 *   <li>ddp: as no_shard, but gradients all-reduced per {@link GradientBucket}.</li>
 * </ul>
 */
public record ShardingPlan(ParallelMode mode, int worldSize, int shardGroupSize, List<FlatUnit> units,
                           List<GradientBucket> buckets) {
    public static final int MAX_WORLD_SIZE = 1 << 16;

    public ShardingPlan {
        units = List.copyOf(units);
        buckets = List.copyOf(buckets);
    }

    /**
     * The plan of a run of this configuration over {@code worldSize} ranks: the mode it implies
     * ({@link ParallelMode#of}) and, for hybrid_shard, {@code fsdp.hybrid_shard_gpus_per_node}, or the launcher's
     * ranks per node when that is 0. A world that the hybrid group does not divide is refused, naming both.
     */
    public static ShardingPlan forRun(TrainerConfig cfg, int worldSize, int localWorldSize) {
        int hybrid = cfg.fsdp().hybridShardGpusPerNode();
        return of(ModelParameters.of(cfg.model()), ParallelMode.of(cfg.distributed(), cfg.fsdp(), worldSize), worldSize,
                hybrid == 0 ? localWorldSize : hybrid, cfg.distributed().bucketCapMb());
    }

    /**
     * @param hybridGroupSize ranks per shard group for hybrid_shard (fsdp.hybrid_shard_gpus_per_node, or the
     *                        launcher's LOCAL_WORLD_SIZE when that is 0); ignored by the other modes
     * @param bucketCapMb     distributed.bucket_cap_mb; used by ddp only
     */
    public static ShardingPlan of(List<ParameterSpec> params, ParallelMode mode, int worldSize, int hybridGroupSize,
                                  int bucketCapMb) {
        if (worldSize < 1 || worldSize > MAX_WORLD_SIZE) {
            throw new ConfigException("world size " + worldSize + " is outside 1.." + MAX_WORLD_SIZE + ".");
        }
        int groupSize = switch (mode) {
            case FULL_SHARD, SHARD_GRAD_OP -> worldSize;
            case NO_SHARD, DDP -> 1;
            case HYBRID_SHARD -> {
                if (hybridGroupSize < 1 || worldSize % hybridGroupSize != 0) {
                    throw new ConfigException("fsdp.hybrid_shard_gpus_per_node (or LOCAL_WORLD_SIZE) is "
                            + hybridGroupSize + ", expected a positive divisor of the world size " + worldSize
                            + ", since hybrid_shard splits the ranks into equal node groups.");
                }
                yield hybridGroupSize;
            }
        };
        List<FlatUnit> units = new ArrayList<>();
        units.add(FlatUnit.layout("root", -1,
                params.stream().filter(p -> p.block().kind() != Block.Kind.LAYER).toList(), groupSize));
        int layers = (int) params.stream().filter(p -> p.block().kind() == Block.Kind.LAYER)
                .mapToInt(p -> p.block().layer()).distinct().count();
        for (int i = 0; i < layers; i++) {
            Block b = Block.layer(i);
            units.add(FlatUnit.layout(b.toString(), i, params.stream().filter(p -> p.block().equals(b)).toList(),
                    groupSize));
        }
        List<GradientBucket> buckets = mode == ParallelMode.DDP ? buckets(params, bucketCapMb) : List.of();
        return new ShardingPlan(mode, worldSize, groupSize, units, buckets);
    }

    private static List<GradientBucket> buckets(List<ParameterSpec> params, int capMb) {
        long cap = (long) capMb << 20;
        List<GradientBucket> out = new ArrayList<>();
        List<ParameterSpec> current = new ArrayList<>();
        long bytes = 0;
        for (ParameterSpec p : params.reversed()) {
            long b = p.numel() * Float.BYTES;
            if (!current.isEmpty() && bytes + b > cap) {
                out.add(new GradientBucket(out.size(), current, current.getLast().block()));
                current = new ArrayList<>();
                bytes = 0;
            }
            current.add(p);
            bytes += b;
        }
        if (!current.isEmpty()) {
            out.add(new GradientBucket(out.size(), current, current.getLast().block()));
        }
        return out;
    }

    public FlatUnit root() {
        return units.getFirst();
    }

    public List<FlatUnit> layers() {
        return units.subList(1, units.size());
    }

    public FlatUnit layer(int i) {
        return units.get(i + 1);
    }

    /** The rank's index in its shard group: which shard of every unit it owns. */
    public int groupRank(int rank) {
        return rank % shardGroupSize;
    }

    public int[] shardGroup(int rank) {
        int first = rank / shardGroupSize * shardGroupSize;
        return IntStream.range(first, first + shardGroupSize).toArray();
    }

    public int[] replicaGroup(int rank) {
        return IntStream.range(0, worldSize / shardGroupSize).map(g -> g * shardGroupSize + groupRank(rank))
                .toArray();
    }

    /** The elements of {@code unit} that {@code rank} owns and updates with the optimizer. */
    public ElementRange owned(int rank, FlatUnit unit) {
        return unit.shard(groupRank(rank));
    }

    /**
     * Whether {@code unit} is gathered before its forward (and then held until it is freed); not when the shard
     * group is one rank (hybrid_shard with one GPU per node), whose shard is the whole unit.
     */
    public boolean gathersBeforeForward(FlatUnit unit) {
        return mode.sharded() && shardGroupSize > 1;
    }

    /**
     * Whether {@code unit} is freed after its forward and gathered again before its backward: full_shard and
     * hybrid_shard layers. The root is kept, as FSDP keeps its root unsharded: its parameters are used at the start
     * and the end of the forward and again at the start and the end of the backward.
     */
    public boolean regathersForBackward(FlatUnit unit) {
        return mode.reshardsAfterForward() && shardGroupSize > 1 && !unit.isRoot();
    }

    /** What {@code unit}'s gather moves for one rank, if it is gathered. */
    public Optional<Collective> gather(FlatUnit unit) {
        return gathersBeforeForward(unit)
                ? Optional.of(new Collective(Collective.Kind.ALL_GATHER, Collective.Group.SHARD, unit.shardBytes(),
                        unit.paddedBytes()))
                : Optional.empty();
    }

    /** The collectives that turn {@code unit}'s local gradient into the reduced gradient of the rank's shard. */
    public List<Collective> reduction(FlatUnit unit) {
        if (worldSize == 1) {
            return List.of();
        }
        return switch (mode) {
            case FULL_SHARD, SHARD_GRAD_OP -> List.of(reduceScatter(unit));
            case HYBRID_SHARD -> {
                List<Collective> c = new ArrayList<>();
                if (shardGroupSize > 1) {
                    c.add(reduceScatter(unit));
                }
                if (worldSize > shardGroupSize) {
                    c.add(new Collective(Collective.Kind.ALL_REDUCE, Collective.Group.REPLICA, unit.shardBytes(),
                            unit.shardBytes()));
                }
                yield c;
            }
            case NO_SHARD -> List.of(new Collective(Collective.Kind.ALL_REDUCE, Collective.Group.REPLICA,
                    unit.paddedBytes(), unit.paddedBytes()));
            case DDP -> List.of(); // per bucket, not per unit
        };
    }

    private static Collective reduceScatter(FlatUnit unit) {
        return new Collective(Collective.Kind.REDUCE_SCATTER, Collective.Group.SHARD, unit.paddedBytes(),
                unit.shardBytes());
    }

    /** Bytes of parameters a rank owns: its shard of every unit. */
    public long ownedBytes() {
        return units.stream().mapToLong(FlatUnit::shardBytes).sum();
    }
}
