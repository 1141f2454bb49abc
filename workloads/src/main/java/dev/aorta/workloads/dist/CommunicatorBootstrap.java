package dev.aorta.workloads.dist;

import dev.aorta.workloads.session.Communicator;
import dev.aorta.workloads.session.CommunicatorId;
import dev.aorta.workloads.session.GpuSession;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Opens this rank's communicators: rank 0 makes the world's id and serves it, the others fetch it; all join
 * the world communicator; with process groups, the world is split (ncclCommSplit, color = group index,
 * key = world rank) and each rank works in its own group.
 */
public final class CommunicatorBootstrap {
    private CommunicatorBootstrap() {
    }

    /**
     * @param world   every rank's communicator
     * @param group   the communicator the workload uses: its process group's, or {@code world} without groups
     * @param members the world ranks of {@code group}, ascending (group rank i = members[i])
     */
    public record Communicators(Communicator world, Communicator group, List<Integer> members) {
        /** All distinct communicators, the world last (so that closing in order frees children first). */
        public List<Communicator> all() {
            return group == world ? List.of(world) : List.of(group, world);
        }
    }

    public static Communicators open(GpuSession gpu, DistributedEnvironment env, ProcessGroups groups,
                                     Duration rendezvousTimeout, Consumer<String> log) {
        Communicator world;
        if (env.rank() == 0) {
            CommunicatorId id = gpu.newCommunicatorId();
            if (env.distributed()) {
                try (Rendezvous.Server server = Rendezvous.serve(id, env.masterAddr(), env.rendezvousPort(),
                        env.worldSize())) {
                    log.accept("rendezvous: serving the communicator id on " + env.masterAddr() + ":" + server.port());
                    world = gpu.openCommunicator(id, env.worldSize(), 0);
                }
            } else {
                world = gpu.openCommunicator(id, 1, 0);
            }
        } else {
            CommunicatorId id = Rendezvous.fetch(env.masterAddr(), env.rendezvousPort(), env.rank(), env.worldSize(),
                    rendezvousTimeout);
            world = gpu.openCommunicator(id, env.worldSize(), env.rank());
        }
        if (groups == null) {
            return new Communicators(world, world, java.util.stream.IntStream.range(0, env.worldSize()).boxed().toList());
        }
        Communicator group = world.split(groups.groupIndexOf(env.rank()), env.rank());
        return new Communicators(world, group, groups.membersOf(env.rank()));
    }
}
