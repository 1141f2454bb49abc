package dev.aorta.workloads.comm;

import dev.aorta.workloads.dist.CommWatchdog;
import dev.aorta.workloads.dist.CommunicatorBootstrap;
import dev.aorta.workloads.dist.DistributedEnvironment;
import dev.aorta.workloads.dist.ProcessGroups;
import dev.aorta.workloads.session.CommDType;
import dev.aorta.workloads.session.DType;
import dev.aorta.workloads.session.GemmSpec;
import dev.aorta.workloads.session.SimulatedGpuSession;
import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Several ranks in one JVM (a thread and a simulated device each) meeting through the real TCP rendezvous on
 * 127.0.0.1 and the simulated fabric: every collective's result is checked by the workload's own check.
 */
class MultiRankOverlapTest {

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    private static OverlapConfig config(Collective c, OverlapMode mode) {
        return new OverlapConfig(mode, GemmSpec.square(DType.BF16, 256), 2, 2, 64 << 10, 2, CommDType.BF16, c, true,
                true);
    }

    /** Runs one rank of {@code world}: bootstrap, the harness run, the communicators closed. */
    private static RunResult rank(int rank, int world, int port, String groups, OverlapConfig config,
                                  Consumer<SimulatedGpuSession> device) {
        DistributedEnvironment env = new DistributedEnvironment(DistributedEnvironment.Launcher.AORTA, rank, world,
                rank, world, "127.0.0.1", port, port);
        SimulatedGpuSession gpu = new SimulatedGpuSession();
        device.accept(gpu);
        CommunicatorBootstrap.Communicators comms = CommunicatorBootstrap.open(gpu, env,
                groups == null ? null : ProcessGroups.parse(groups).validateFor(world), Duration.ofSeconds(20), l -> { });
        CommsComputeOverlap w = new CommsComputeOverlap(config, comms.group(), comms.members(), rank, null);
        HarnessOptions options = HarnessOptions.defaults(w.streamCount()).withIterations(3, 1).withDtype(DType.BF16);
        try {
            return new Harness(Map.of(), false).run(w, options, gpu);
        } finally {
            comms.all().forEach(c -> c.close());
        }
    }

    private static List<RunResult> job(int world, String groups, OverlapConfig config) throws Exception {
        int port = freePort();
        // one thread per rank: they block on each other in every collective
        ExecutorService threads = Executors.newFixedThreadPool(world);
        try {
            List<Future<RunResult>> ranks = new ArrayList<>();
            for (int r = 0; r < world; r++) {
                int rank = r;
                ranks.add(threads.submit(() -> rank(rank, world, port, groups, config, s -> { })));
            }
            List<RunResult> results = new ArrayList<>();
            for (Future<RunResult> f : ranks) {
                results.add(f.get(60, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            threads.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(Collective.class)
    void everyCollectiveGivesTheRightResultOnFourRanks(Collective c) throws Exception {
        for (RunResult r : job(4, null, config(c, OverlapMode.COMMS_COMPUTE))) {
            assertThat(r.correctness().checked()).isTrue();
            assertThat(r.correctness().problem()).isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(Collective.class)
    void processGroupsOfTwoOnFourRanksSumInsideTheirGroup(Collective c) throws Exception {
        for (RunResult r : job(4, "[0,1],[2,3]", config(c, OverlapMode.COMMS_ONLY))) {
            assertThat(r.correctness().problem()).isNull();
        }
    }

    @Test
    void singletonGroupsOnTwoRanksEachSumOnlyThemselves() throws Exception {
        for (RunResult r : job(2, "[0],[1]", config(Collective.ALL_REDUCE, OverlapMode.COMMS_ONLY))) {
            assertThat(r.correctness().problem()).isNull();
        }
    }

    @Test
    void theCheckWouldSeeASumOverTheWrongGroup() {
        // rank 1 alone in its group must get 2 (= 1 + 1); the world's sum would be 3
        List<Integer> group = List.of(1);
        assertThat(Collective.ALL_REDUCE.expected(0, 256, group, 0)).isEqualTo(2f);
        assertThat(Collective.ALL_REDUCE.expected(0, 256, List.of(0, 1), 1)).isEqualTo(3f);
        assertThat(Collective.ALL_GATHER.expected(300, 512, List.of(2, 3), 0)).isEqualTo(4f);
        assertThat(Collective.BROADCAST.expected(5, 512, List.of(2, 3), 1)).isEqualTo(3f);
    }

    @Test
    void aCollectiveThatNeverFinishesIsAbortedByTheWatchdogWithItsReason() throws Exception {
        int port = freePort();
        DistributedEnvironment env = new DistributedEnvironment(DistributedEnvironment.Launcher.AORTA, 0, 1, 0, 1,
                "127.0.0.1", port, port);
        SimulatedGpuSession gpu = new SimulatedGpuSession();
        gpu.collectivesHang = true;
        CommunicatorBootstrap.Communicators comms = CommunicatorBootstrap.open(gpu, env, null, Duration.ofSeconds(5),
                l -> { });
        OverlapConfig config = config(Collective.ALL_REDUCE, OverlapMode.COMMS_ONLY);
        try (CommWatchdog dog = new CommWatchdog(comms.all(), Duration.ofMillis(500), Duration.ofMillis(20))) {
            CommsComputeOverlap w = new CommsComputeOverlap(config, comms.group(), comms.members(), 0, dog);
            dog.arm();
            long start = System.nanoTime();
            assertThatThrownBy(() -> new Harness(Map.of(), false).run(w,
                    HarnessOptions.defaults(1).withIterations(3, 0).withDtype(DType.BF16), gpu))
                    .hasMessageContaining("aborted");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            assertThat(dog.failure()).hasValueSatisfying(m -> assertThat(m).startsWith("no progress for"));
            assertThat(gpu.communicatorAborts).isEqualTo(1);
        }
    }

    @Test
    void aPeersAsynchronousErrorAbortsAndIsTheReasonGiven() throws Exception {
        int port = freePort();
        DistributedEnvironment env = new DistributedEnvironment(DistributedEnvironment.Launcher.AORTA, 0, 1, 0, 1,
                "127.0.0.1", port, port);
        SimulatedGpuSession gpu = new SimulatedGpuSession();
        gpu.collectivesHang = true;
        CommunicatorBootstrap.Communicators comms = CommunicatorBootstrap.open(gpu, env, null, Duration.ofSeconds(5),
                l -> { });
        try (CommWatchdog dog = new CommWatchdog(comms.all(), Duration.ofSeconds(60), Duration.ofMillis(20))) {
            CommsComputeOverlap w = new CommsComputeOverlap(config(Collective.ALL_REDUCE, OverlapMode.COMMS_ONLY),
                    comms.group(), comms.members(), 0, dog);
            dog.arm();
            Thread.ofPlatform().daemon().start(() -> {
                sleep(300);
                gpu.commAsyncError = "remote process exited or there was a network error";
            });
            assertThatThrownBy(() -> new Harness(Map.of(), false).run(w,
                    HarnessOptions.defaults(1).withIterations(3, 0).withDtype(DType.BF16), gpu));
            assertThat(dog.failure()).hasValueSatisfying(m -> assertThat(m)
                    .contains("asynchronous error").contains("remote process exited"));
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
