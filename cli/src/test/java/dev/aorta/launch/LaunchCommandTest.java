package dev.aorta.launch;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code aorta launch} as a real process starting real rank JVMs (the hidden {@code launch-probe} command, which
 * needs no GPU), on 127.0.0.1 only.
 */
class LaunchCommandTest {
    private static final Pattern PID = Pattern.compile("\\[rank (\\d+)] probe: .*, pid (\\d+)");

    @TempDir
    Path dir;

    private Process launcher;
    private final List<Long> rankPids = new ArrayList<>();

    @AfterEach
    void noProcessLeftBehind() {
        if (launcher != null) {
            launcher.descendants().forEach(ProcessHandle::destroyForcibly);
            launcher.destroyForcibly();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    /** Starts {@code aorta launch --no-gpu ARGS}: launch-probe ranks need no GPU. */
    private Process launch(String... args) throws IOException {
        List<String> argv = new ArrayList<>(List.of("--no-gpu"));
        argv.addAll(List.of(args));
        return launch(Map.of(), argv);
    }

    private Process launch(Map<String, String> env, List<String> args) throws IOException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> argv = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), "dev.aorta.cli.AortaCli", "launch"));
        argv.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(argv).redirectOutput(dir.resolve("out").toFile())
                .redirectError(dir.resolve("err").toFile());
        pb.environment().putAll(env);
        launcher = pb.start();
        return launcher;
    }

    private String out() throws IOException {
        return Files.readString(dir.resolve("out"));
    }

    private String err() throws IOException {
        return Files.readString(dir.resolve("err"));
    }

    /** Waits until {@code n} ranks printed {@code text}; remembers the ranks' pids. */
    private void awaitLines(String text, int n, Duration atMost) throws Exception {
        long end = System.nanoTime() + atMost.toNanos();
        while (System.nanoTime() < end) {
            String o = out();
            if (o.lines().filter(l -> l.contains(text)).count() >= n) {
                collectPids();
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("ranks did not print '" + text + "' in time; out:\n" + out() + "\nerr:\n" + err());
    }

    private void collectPids() throws IOException {
        rankPids.clear();
        Matcher m = PID.matcher(out());
        while (m.find()) {
            rankPids.add(Long.parseLong(m.group(2)));
        }
    }

    private long pidOfRank(int rank) throws IOException {
        Matcher m = PID.matcher(out());
        while (m.find()) {
            if (Integer.parseInt(m.group(1)) == rank) {
                return Long.parseLong(m.group(2));
            }
        }
        throw new AssertionError("no pid of rank " + rank);
    }

    private boolean anyRankAlive() {
        return rankPids.stream().anyMatch(p -> ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false));
    }

    @Test
    void ranksGetTheDistributedEnvironmentShareRankZerosIdAndEveryLineIsPrefixed() throws Exception {
        int port = freePort();
        Process p = launch("--nproc-per-node", "2", "--master-port", Integer.toString(port), "--", "launch-probe");
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(err()).isZero();
        String o = out();
        assertThat(o).contains("[rank 0] probe: aorta launch: rank 0 of 2, local rank 0 of 2, rendezvous 127.0.0.1:" + port)
                .contains("[rank 1] probe: aorta launch: rank 1 of 2, local rank 1 of 2")
                .contains("[rank 0] probe: done").contains("[rank 1] probe: done");
        List<String> ids = o.lines().filter(l -> l.contains("probe: id ")).map(l -> l.replaceFirst("^\\[rank \\d] ", ""))
                .toList();
        assertThat(ids).hasSize(2);
        assertThat(ids.get(0)).isEqualTo(ids.get(1)).endsWith("NCCL_NVLS_ENABLE=0");
    }

    @Test
    void aFailingRankStopsTheOthersAndTheLauncherNamesItAndItsLastErrorLine() throws Exception {
        Process p = launch("--nproc-per-node", "3", "--master-port", Integer.toString(freePort()), "--",
                "launch-probe", "--hold-seconds", "120", "--fail-rank", "1");
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(out()).isTrue();
        assertThat(p.exitValue()).isEqualTo(1);
        assertThat(err()).containsPattern("aorta launch: rank 1 \\(pid \\d+\\) failed: exit code 3; its last error line: "
                + "probe: rank 1 fails on purpose").contains("stopped ranks 0, 2");
        collectPids();
        assertThat(rankPids).hasSize(3);
        assertThat(anyRankAlive()).isFalse();
    }

    @Test
    void killingOneRankMidRunIsReportedAndEveryRankIsGoneWithinTenSeconds() throws Exception {
        Process p = launch("--nproc-per-node", "3", "--master-port", Integer.toString(freePort()), "--",
                "launch-probe", "--hold-seconds", "120");
        awaitLines("probe: holding", 3, Duration.ofSeconds(60));
        assertThat(rankPids).hasSize(3);
        ProcessHandle.of(pidOfRank(2)).orElseThrow().destroyForcibly();  // SIGKILL
        long killed = System.nanoTime();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).as("launcher gone within 10 s").isTrue();
        while (anyRankAlive() && System.nanoTime() - killed < Duration.ofSeconds(10).toNanos()) {
            Thread.sleep(50);
        }
        assertThat(anyRankAlive()).as("every rank gone within 10 s").isFalse();
        assertThat(p.exitValue()).isEqualTo(1);
        assertThat(err()).containsPattern("rank 2 \\(pid \\d+\\) failed: killed by SIGKILL \\(exit code 137\\); "
                + "its last output line: probe: holding 120 s").contains("stopped ranks 0, 1");
    }

    @Test
    void sigtermToTheLauncherStopsEveryRank() throws Exception {
        Process p = launch("--nproc-per-node", "2", "--master-port", Integer.toString(freePort()), "--",
                "launch-probe", "--hold-seconds", "120");
        awaitLines("probe: holding", 2, Duration.ofSeconds(60));
        p.destroy();  // SIGTERM, as Ctrl-C's SIGINT: the JVM runs the launcher's shutdown hook
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(anyRankAlive()).isFalse();
        assertThat(err()).contains("aorta launch: interrupted; stopped ranks [0, 1]");
    }

    @Test
    void ranksStopByThemselvesWhenTheLauncherIsKilled() throws Exception {
        Process p = launch("--nproc-per-node", "2", "--master-port", Integer.toString(freePort()), "--",
                "launch-probe", "--hold-seconds", "120");
        awaitLines("probe: holding", 2, Duration.ofSeconds(60));
        p.destroyForcibly();  // SIGKILL: no shutdown hook can stop the ranks
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (anyRankAlive() && System.nanoTime() < end) {
            Thread.sleep(50);
        }
        assertThat(anyRankAlive()).as("orphaned ranks gone within 10 s").isFalse();
    }

    @Test
    void aJobPastItsTimeoutIsStoppedWithExitCode124() throws Exception {
        Process p = launch("--nproc-per-node", "2", "--master-port", Integer.toString(freePort()), "--timeout", "4",
                "--", "launch-probe", "--hold-seconds", "120");
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(err()).isEqualTo(124);
        assertThat(err()).contains("aorta launch: ranks 0, 1 still running after --timeout 4 s: stopped");
        collectPids();
        assertThat(rankPids).hasSize(2);
        assertThat(anyRankAlive()).isFalse();
    }

    @Test
    void aMasterPortInUseIsAClearErrorBeforeAnyRankStarts() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            Process p = launch("--nproc-per-node", "2", "--master-port", Integer.toString(port), "--", "launch-probe");
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(2);
            assertThat(err()).contains("aorta launch: --master-port " + port + " on 127.0.0.1 is already in use");
            assertThat(out()).doesNotContain("[rank");
        }
    }

    @Test
    void badLauncherOptionsAreNamed() throws Exception {
        Process p = launch("--nproc-per-node", "0", "--", "launch-probe");
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(err()).contains("--nproc-per-node must be 1 or more, got 0");
    }

    @Test
    void withoutVisibleGpusNoRankStartsAndTheLauncherSaysHowManyWereAskedAndWhyThereAreNone() throws Exception {
        Process p = launch(Map.of("CUDA_VISIBLE_DEVICES", ""), List.of("--nproc-per-node", "2", "--master-port",
                Integer.toString(freePort()), "--", "launch-probe"));
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(err()).isEqualTo("aorta launch: --nproc-per-node 2: 2 ranks on this node need 2 GPUs (one each), "
                + "but 0 GPUs are visible (CUDA_VISIBLE_DEVICES is empty); --no-gpu starts ranks that need none"
                + System.lineSeparator());
        assertThat(out()).doesNotContain("[rank");
    }

    @Test
    void onAMachineWithoutAnNvidiaDriverNoRankStarts() throws Exception {
        assumeTrue(System.getenv("CUDA_VISIBLE_DEVICES") == null && GpuCount.visible().isEmpty(),
                "a machine without /dev/nvidiaN device files");
        Process p = launch(Map.of(), List.of("--nproc-per-node", "2", "--master-port", Integer.toString(freePort()),
                "--", "launch-probe"));
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(err()).isEqualTo("aorta launch: --nproc-per-node 2: 2 ranks on this node need 2 GPUs (one each), "
                + "but 0 GPUs are visible (no /dev/nvidiaN device files: no NVIDIA driver); --no-gpu starts ranks "
                + "that need none" + System.lineSeparator());
        assertThat(out()).doesNotContain("[rank");
    }

    @Test
    void gpusAreCountedFromCudaVisibleDevicesOrTheDeviceFiles() throws Exception {
        File dev = dir.resolve("dev").toFile();
        assertThat(dev.mkdir()).isTrue();
        assertThat(GpuCount.visible(Map.of(), dev).count()).isEqualTo(OptionalInt.empty());
        for (String f : List.of("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm")) {
            assertThat(new File(dev, f).createNewFile()).isTrue();
        }
        assertThat(GpuCount.visible(Map.of(), dev).count()).isEqualTo(OptionalInt.of(2));
        assertThat(GpuCount.visible(Map.of("CUDA_VISIBLE_DEVICES", "3,1,2"), dev).count()).isEqualTo(OptionalInt.of(3));
        assertThat(GpuCount.visible(Map.of("CUDA_VISIBLE_DEVICES", ""), dev).count()).isEqualTo(OptionalInt.of(0));
    }

    @Test
    void noDriverCountsAsNoGpuForTheLauncherAndSaysSo() {
        File dev = dir.toFile();
        assertThatThrownBy(() -> GpuCount.requireGpus(1, "--nproc-per-node 1", GpuCount.visible(Map.of(), dev)))
                .hasMessage("--nproc-per-node 1: 1 rank on this node needs 1 GPU, but 0 GPUs are visible (no "
                        + dev + "/nvidiaN device files: no NVIDIA driver)");
        assertThatThrownBy(() -> GpuCount.requireGpus(3, "LOCAL_WORLD_SIZE 3",
                GpuCount.visible(Map.of("CUDA_VISIBLE_DEVICES", "0,1"), dev)))
                .hasMessage("LOCAL_WORLD_SIZE 3: 3 ranks on this node need 3 GPUs (one each), but 2 GPUs are visible "
                        + "(CUDA_VISIBLE_DEVICES=0,1)");
    }
}
