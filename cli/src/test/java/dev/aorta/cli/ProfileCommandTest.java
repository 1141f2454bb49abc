package dev.aorta.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.aorta.workloads.result.ResultJson;
import dev.aorta.workloads.session.SimulatedGpuSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ProfileCommandTest {
    @TempDir
    Path dir;

    private boolean opened;

    private CliRunner.Outcome aorta(String... args) {
        return CliRunner.run(device -> {
            opened = true;
            SimulatedGpuSession s = new SimulatedGpuSession();
            s.serialEngine = false;
            return s;
        }, args);
    }

    @Test
    void oneRunGivesAPerfettoTraceAPageWithARowPerStreamAndTheResult() throws Exception {
        CliRunner.Outcome o = aorta("profile", "hetero_kernels", "-s", "4", "-i", "3", "-w", "1", "-p", "gemm_size=256",
                "-p", "small_per_large=2", "-o", dir.toString());
        assertThat(o.exitCode()).as(o.err()).isZero();
        JsonNode trace = ResultJson.read(dir.resolve("hetero_kernels_s4_trace.json"));
        assertThat(trace.path("traceEvents").size()).isGreaterThan(4);
        String page = Files.readString(dir.resolve("hetero_kernels_s4.html"));
        assertThat(page).contains("<svg").contains("stream 0 (large").contains("stream 3 (small")
                .contains("estimated switch overhead").contains("dispatch, cross stream")
                .doesNotContain("<script").doesNotContain("http://cdn");
        assertThat(page.split("<rect").length - 1).as("boxes drawn for 3 iterations")
                .isEqualTo(3 * (2 + 2 * 2));
        assertThat(ResultJson.read(dir.resolve("hetero_kernels_s4.json")).path("stream_count").asInt()).isEqualTo(4);
        assertThat(o.out()).contains("page: " + dir.resolve("hetero_kernels_s4.html"));
    }

    @Test
    void withAProfilerThatIsNotInstalledItSaysSoInOneSentenceAndKeepsItsOwnProfile() {
        assumeTrue(!onPath("nsys"), "nsys is installed here");
        CliRunner.Outcome o = aorta("profile", "tiny_kernel_stress", "-s", "2", "-i", "2", "-w", "0",
                "-p", "ops_per_stream=1", "-o", dir.toString(), "--with", "nsys");
        assertThat(o.exitCode()).as(o.err()).isZero();
        assertThat(o.out()).contains("nsys: not installed (no nsys on PATH), so only aorta's own CUPTI profile above "
                + "was made");
        assertThat(Files.exists(dir.resolve("tiny_kernel_stress_s2.html"))).isTrue();
    }

    @Test
    void anUnknownProfilerIsRefusedBeforeTheGpuOpens() {
        CliRunner.Outcome o = aorta("profile", "tiny_kernel_stress", "--with", "vtune");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--with vtune: expected nsys or rocprofv3");
        assertThat(opened).isFalse();
    }

    private static boolean onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d.isEmpty() ? "." : d, program))) {
                return true;
            }
        }
        return false;
    }
}
