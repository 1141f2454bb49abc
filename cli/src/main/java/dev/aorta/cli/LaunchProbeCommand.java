package dev.aorta.cli;

import dev.aorta.workloads.dist.DistributedEnvironment;
import dev.aorta.workloads.dist.Rendezvous;
import dev.aorta.workloads.session.CommunicatorId;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * Checks a launcher without a GPU: reads the distributed environment, passes a random id from rank 0 to the
 * others through the same TCP rendezvous the GPU commands use, prints what every rank got, then holds or
 * fails on purpose (for the launcher's failure tests and the lead's kill-one-rank check).
 */
@Command(name = "launch-probe", hidden = true, mixinStandardHelpOptions = true,
        description = "Check the distributed environment and the rendezvous without a GPU.")
final class LaunchProbeCommand implements Callable<Integer> {

    @Option(names = "--hold-seconds", defaultValue = "0", description = "Stay alive this long after the rendezvous.")
    int holdSeconds;

    @Option(names = "--fail-rank", defaultValue = "-1", description = "This rank exits with code 3 after the rendezvous.")
    int failRank;

    @Option(names = "--rendezvous-timeout", defaultValue = "30", description = "Seconds a rank waits for rank 0.")
    int rendezvousTimeout;

    @Override
    public Integer call() throws InterruptedException {
        DistributedEnvironment env = DistributedEnvironment.current();
        System.out.println("probe: " + env.describe() + ", pid " + ProcessHandle.current().pid());
        CommunicatorId id;
        if (env.rank() == 0) {
            byte[] bytes = new byte[128];
            new SecureRandom().nextBytes(bytes);
            id = new CommunicatorId(bytes);
            if (env.distributed()) {
                try (Rendezvous.Server server = Rendezvous.serve(id, env.masterAddr(), env.rendezvousPort(),
                        env.worldSize())) {
                    long deadline = System.nanoTime() + Duration.ofSeconds(rendezvousTimeout).toNanos();
                    while (!server.allServed() && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                    if (!server.allServed()) {
                        throw new IllegalStateException("not every rank fetched the id within " + rendezvousTimeout + " s");
                    }
                }
            }
        } else {
            id = Rendezvous.fetch(env.masterAddr(), env.rendezvousPort(), env.rank(), env.worldSize(),
                    Duration.ofSeconds(rendezvousTimeout));
        }
        System.out.println("probe: id " + Integer.toHexString(id.hashCode()) + " NCCL_NVLS_ENABLE="
                + System.getenv("NCCL_NVLS_ENABLE"));
        if (env.rank() == failRank) {
            System.err.println("probe: rank " + env.rank() + " fails on purpose");
            return 3;
        }
        if (holdSeconds > 0) {
            System.out.println("probe: holding " + holdSeconds + " s");
            Thread.sleep(holdSeconds * 1000L);
        }
        System.out.println("probe: done");
        return 0;
    }
}
