package dev.aorta.cli;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The command lines that {@code scripts/launch_cuda.sh} builds, run with a fake {@code aorta} (it prints its
 * arguments, one per line, and CUDA_DEVICE_MAX_CONNECTIONS) and a fake {@code nvidia-smi} on PATH.
 */
class LaunchScriptsTest {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path BASH = Path.of("/bin/bash");

    @TempDir
    Path tmp;
    private Path bin;

    record Run(int exitCode, List<String> out, String err) {
    }

    @BeforeEach
    void fakeTools() throws IOException {
        assumeTrue(Files.isExecutable(BASH), "bash is needed to run the launch scripts");
        bin = Files.createDirectories(tmp.resolve("bin"));
        executable(bin.resolve("aorta"), """
                #!/bin/bash
                echo "CUDA_DEVICE_MAX_CONNECTIONS=$CUDA_DEVICE_MAX_CONNECTIONS"
                for a in "$@"; do echo "$a"; done
                """);
        executable(bin.resolve("nvidia-smi"), """
                #!/bin/bash
                [ "$1" = "-L" ] || exit 9
                echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-aaaa)"
                echo "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-bbbb)"
                """);
    }

    private static void executable(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private Run run(String script, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(BASH.toString(), ROOT.resolve("scripts").resolve(script).toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(tmp.toFile());
        Map<String, String> e = pb.environment();
        for (String v : List.of("RANK", "WORLD_SIZE", "LOCAL_RANK", "SLURM_PROCID", "SLURM_NTASKS", "NPROC",
                "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_MAX_CONNECTIONS", "AORTA_BIN")) {
            e.remove(v);
        }
        e.put("PATH", bin + ":/usr/bin:/bin");
        e.putAll(env);
        Path err = tmp.resolve("err.txt");
        Process p = pb.redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), out.lines().toList(), Files.readString(err));
    }

    @Test
    void startsOneRankPerGpuThatNvmlListsWithTheConfigOverridesAndOtherOptions() throws Exception {
        Path config = Files.writeString(tmp.resolve("run.yaml"), "training:\n  max_steps: 40\n");
        Run r = run("launch_cuda.sh", Map.of(), config.toString(), "training.max_steps=40", "model.num_layers=2",
                "--save-final-weights", "w.safetensors");
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).containsExactly("CUDA_DEVICE_MAX_CONNECTIONS=1", "launch", "--nproc-per-node", "2", "--",
                "train", "--config", config.toString(), "--override", "training.max_steps=40", "model.num_layers=2",
                "--save-final-weights", "w.safetensors");
    }

    @Test
    void nprocAndAGivenMaxConnectionsWinAndNoConfigMeansTheDefaults() throws Exception {
        Run r = run("launch_cuda.sh", Map.of("NPROC", "1", "CUDA_DEVICE_MAX_CONNECTIONS", "8"),
                "training.max_steps=5");
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).containsExactly("CUDA_DEVICE_MAX_CONNECTIONS=8", "launch", "--nproc-per-node", "1", "--",
                "train", "--override", "training.max_steps=5");
    }

    @Test
    void visibleDevicesAreCountedBeforeNvml() throws Exception {
        Run r = run("launch_cuda.sh", Map.of("CUDA_VISIBLE_DEVICES", "0,3,5"));
        assertThat(r.out()).containsSubsequence("--nproc-per-node", "3", "--", "train");
    }

    @Test
    void underTorchrunOrSlurmEachRankRunsTrainItself() throws Exception {
        for (Map<String, String> launcher : List.of(Map.of("RANK", "1", "WORLD_SIZE", "2"),
                Map.of("SLURM_PROCID", "3", "SLURM_NTASKS", "4"))) {
            Run r = run("launch_cuda.sh", launcher, "training.max_steps=5");
            assertThat(r.exitCode()).as(r.err()).isZero();
            assertThat(r.out()).as(launcher.toString()).containsExactly("CUDA_DEVICE_MAX_CONNECTIONS=1", "train",
                    "--override", "training.max_steps=5");
        }
    }

    @Test
    void aMissingConfigOrABadNprocIsOneSentenceAndNothingRuns() throws Exception {
        Run missing = run("launch_cuda.sh", Map.of(), "nope.yaml");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err().strip()).isEqualTo("launch_cuda: config file 'nope.yaml' does not exist; expected a"
                + " YAML file such as config/default.yaml");
        assertThat(missing.out()).isEmpty();
        Run badNproc = run("launch_cuda.sh", Map.of("NPROC", "two"));
        assertThat(badNproc.exitCode()).isEqualTo(2);
        assertThat(badNproc.err()).contains("NPROC='two' is not a whole number of at least 1");
        Run noGpu = run("launch_cuda.sh", Map.of("CUDA_VISIBLE_DEVICES", ""));
        assertThat(noGpu.exitCode()).isEqualTo(2);
        assertThat(noGpu.err()).contains("found 0 GPUs", "set NPROC");
    }

    @Test
    void theRocmScriptSaysThatThereIsNoRocmBackendAndStartsNothing() throws Exception {
        Run r = run("launch_rocm.sh", Map.of(), "config/default.yaml");
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.err()).contains("aorta has no ROCm backend yet", "nothing was started", "scripts/launch_cuda.sh");
        assertThat(r.out()).isEmpty();
    }
}
