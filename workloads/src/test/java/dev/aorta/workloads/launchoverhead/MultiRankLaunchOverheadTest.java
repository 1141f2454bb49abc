package dev.aorta.workloads.launchoverhead;

import com.fasterxml.jackson.databind.JsonNode;
import dev.aorta.workloads.dist.CommunicatorBootstrap;
import dev.aorta.workloads.dist.DistributedEnvironment;
import dev.aorta.gpu.cuda.DeviceInfo;
import dev.aorta.workloads.session.SimulatedGpuSession;
import dev.aorta.workloads.launchoverhead.pcie.PcieMonitor;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Several ranks in one JVM (a thread, a simulated session and a host codebook model each) meeting through the
 * real TCP rendezvous on 127.0.0.1 and the simulated fabric, which computes every all-reduce and all-gather.
 */
class MultiRankLaunchOverheadTest {
    private static final DeviceInfo DEVICE = new DeviceInfo(0, "Host model", 1, 0, 0, 0, 0, 0, 0, 0, 0, "none");
    private static final CodebookShape SHAPE = new CodebookShape(16, 4, 64, 2);
    private static final List<Pattern> COLLECTIVE = List.of(Pattern.ALL_REDUCE, Pattern.COMBINED);
    /** Balanced on SHAPE, as LaunchOverheadRunTest counts it. */
    private static final int BALANCED_LAUNCHES = 1 + 2 * (5 + 6 * 16 + 2);
    private static final int BALANCED_SYNCS = 2 * 16 + 1;

    private record Rank(int rank, LaunchOverheadResult result, SimulatedGpuSession gpu) {
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    /** Rank r's clock advances r + 1 ms at every read: the ranks run at different paces. */
    private static Rank rank(int rank, int world, int port, List<Pattern> patterns, Consumer<SimulatedGpuSession> setup) {
        DistributedEnvironment env = new DistributedEnvironment(DistributedEnvironment.Launcher.AORTA, rank, world,
                rank, world, "127.0.0.1", port, port);
        SimulatedGpuSession gpu = new SimulatedGpuSession();
        setup.accept(gpu);
        CommunicatorBootstrap.Communicators comms = CommunicatorBootstrap.open(gpu, env, null, Duration.ofSeconds(20),
                line -> { });
        long[] nowNs = {0};
        try {
            LaunchOverheadRun run = new LaunchOverheadRun(HostCodebookDevice::new,
                    () -> PcieMonitor.unavailable("not sampled in tests"), () -> nowNs[0] += (rank + 1) * 1_000_000L,
                    shape -> new StageAllReduce(gpu, comms.world(), shape), null);
            return new Rank(rank, run.run(new LaunchOverheadOptions(SHAPE, patterns, 0.02, 1, rank, 5), DEVICE), gpu);
        } finally {
            comms.all().forEach(c -> c.close());
        }
    }

    private static List<Rank> job(int world, List<Pattern> patterns, Consumer<SimulatedGpuSession> setupRank1)
            throws Exception {
        int port = freePort();
        ExecutorService threads = Executors.newFixedThreadPool(world);
        try {
            List<Future<Rank>> ranks = new ArrayList<>();
            for (int r = 0; r < world; r++) {
                int rank = r;
                ranks.add(threads.submit(() -> rank(rank, world, port, patterns, rank == 1 ? setupRank1 : g -> { })));
            }
            List<Rank> results = new ArrayList<>();
            for (Future<Rank> f : ranks) {
                results.add(f.get(60, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            threads.shutdownNow();
        }
    }

    /** What a rank measured itself (its own line of its result). */
    private static PatternResult own(Rank rank, Pattern pattern) {
        LaunchOverheadResult r = rank.result();
        return r.ranks().get(rank.rank()).patterns().get(r.options().patterns().indexOf(pattern));
    }

    @Test
    void allReduceAndCombinedIssueTwoAllReducesPerStageAndEveryRankRunsTheSameSteps() throws Exception {
        List<Rank> ranks = job(2, COLLECTIVE, g -> { });
        for (Rank rank : ranks) {
            PatternResult allReduce = own(rank, Pattern.ALL_REDUCE);
            assertThat(allReduce.collectivesPerStep()).isEqualTo(2 * SHAPE.stages());
            assertThat(allReduce.launchesPerStep()).isZero();
            assertThat(allReduce.syncsPerStep()).isEqualTo(1);
            PatternResult combined = own(rank, Pattern.COMBINED);
            assertThat(combined.collectivesPerStep()).isEqualTo(2 * SHAPE.stages());
            assertThat(combined.launchesPerStep()).isEqualTo(BALANCED_LAUNCHES);
            assertThat(combined.syncsPerStep()).isEqualTo(BALANCED_SYNCS + 1);
            assertThat(rank.result().allReduceProblem()).isNull();
            assertThat(rank.result().correct()).isTrue();
        }
        // rank 1 is the slower (2 ms per clock read): both run the step count that fills 20 ms at its pace
        assertThat(own(ranks.get(0), Pattern.ALL_REDUCE).steps()).isEqualTo(own(ranks.get(1), Pattern.ALL_REDUCE).steps());
        assertThat(own(ranks.get(0), Pattern.COMBINED).steps()).isEqualTo(own(ranks.get(1), Pattern.COMBINED).steps());
        // every step, warmup and calibration step issued its all-reduces; one all-gather per calibration + the table
        int steps = 0;
        for (Pattern p : COLLECTIVE) {
            steps += 1 + LaunchOverheadRun.CALIBRATION_STEPS + own(ranks.get(0), p).steps();
        }
        for (Rank rank : ranks) {
            assertThat(Collections.frequency(rank.gpu().collectivesIssued, "AllReduce_Sum"))
                    .isEqualTo(2 * SHAPE.stages() * steps);
            assertThat(Collections.frequency(rank.gpu().collectivesIssued, "AllGather")).isEqualTo(COLLECTIVE.size() + 1);
        }
    }

    @Test
    void theGatherReachesRankZeroWhoseTableAndSummaryHaveEveryRank() throws Exception {
        List<Rank> ranks = job(3, List.of(Pattern.ARGMIN, Pattern.ALL_REDUCE, Pattern.COMBINED), g -> { });
        LaunchOverheadResult r0 = ranks.get(0).result();
        assertThat(r0.worldSize()).isEqualTo(3);
        assertThat(r0.ranks()).extracting(LaunchOverheadResult.RankResult::rank).containsExactly(0, 1, 2);
        assertThat(r0.ranks()).extracting(LaunchOverheadResult.RankResult::device).containsExactly(0, 1, 2);
        for (int r = 1; r < 3; r++) {
            for (int i = 0; i < 3; i++) {
                PatternResult theirs = ranks.get(r).result().ranks().get(r).patterns().get(i);
                PatternResult gathered = r0.ranks().get(r).patterns().get(i);
                assertThat(gathered.msPerStep()).isCloseTo(theirs.msPerStep(), within(1e-4 * theirs.msPerStep()));
                assertThat(gathered.steps()).isEqualTo(theirs.steps());
                assertThat(gathered.collectivesPerStep()).isEqualTo(theirs.collectivesPerStep());
            }
        }
        // rank 2's clock is the slowest: its argmin (on its own clock) takes 3 ms per read, rank 0's 1 ms
        LaunchOverheadSummary.Row argmin = LaunchOverheadSummary.of(r0).getFirst();
        assertThat(argmin.ranks()).isEqualTo(3);
        assertThat(argmin.maxMsPerStep()).isGreaterThan(argmin.minMsPerStep());

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        LaunchOverheadReport.print(r0, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        for (int r = 0; r < 3; r++) {
            assertThat(out).contains("rank " + r + "  argmin", "rank " + r + "  all_reduce", "rank " + r + "  combined");
        }
        assertThat(out).contains("world size 3", "(mean over 3 ranks", "4 collectives/step",
                "correctness (all-reduce, 3 ranks): every element of every rank = the sum over the ranks: PASS",
                "PCIe: sampled on rank 1, printed there");
        assertThat(out.indexOf("summary:")).isGreaterThan(out.lastIndexOf("rank 2  combined"));

        JsonNode json = LaunchOverheadJson.toJson(r0);
        assertThat(json.path("world_size").asInt()).isEqualTo(3);
        assertThat(json.path("ranks")).hasSize(3);
        assertThat(json.path("ranks").get(2).path("patterns").get(1).path("collectives_per_step").asDouble()).isEqualTo(4);
        assertThat(json.path("summary").get(2).path("ranks").asInt()).isEqualTo(3);
        assertThat(json.path("correctness").path("all_reduce_problem").isNull()).isTrue();
    }

    @Test
    void aRankWhoseAllReduceSumsAreWrongFailsItsCheckAndRankZeroNamesIt() throws Exception {
        List<Rank> ranks = job(2, List.of(Pattern.ALL_REDUCE), g -> g.miscomputed = "AllReduce_Sum");
        assertThat(ranks.get(1).result().allReduceProblem())
                .startsWith("rank 1: 1 of 16 elements of the K-element all-reduce differ from the sum over 2 ranks, "
                        + "first element 0 = 4.0, 3.0 expected");
        assertThat(ranks.get(0).result().allReduceProblem()).startsWith("rank(s) [1]:");
        assertThat(ranks.get(0).result().correct()).isFalse();
    }

    @Test
    void rankContributionsSumToTheExpectedValueElementByElement() {
        float[] a = StageAllReduce.contribution(0, 10);
        float[] b = StageAllReduce.contribution(1, 10);
        for (int i = 0; i < 10; i++) {
            assertThat(a[i] + b[i]).isEqualTo(StageAllReduce.expectedSum(2, i));
        }
        assertThat(StageAllReduce.expectedSum(2, 8)).isEqualTo(3 + 2);
    }

    @Test
    void theAgreedStepCountFillsTheTimeAtTheSlowestPaceAndIsAtLeastOne() {
        assertThat(LaunchOverheadRun.stepsFor(5, 100)).isEqualTo(50);
        assertThat(LaunchOverheadRun.stepsFor(5, 9000)).isEqualTo(1);
        assertThat(LaunchOverheadRun.stepsFor(5, 0)).isEqualTo(1);
    }
}
