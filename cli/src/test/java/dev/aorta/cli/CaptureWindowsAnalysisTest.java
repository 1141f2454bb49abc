package dev.aorta.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent's capture windows are windows for {@code aorta analyze}, and its CLOCK_BOOTTIME anchor places a rocprofv3
 * trace of the same run on its timeline. The agent file and the rocprof file are "the same run" built by hand: the
 * host's CLOCK_BOOTTIME runs 7 s ahead of CLOCK_MONOTONIC (7 s the host spent suspended, say).
 */
class CaptureWindowsAnalysisTest {
    private static final long BOOT_AHEAD = 7_000_000_000L;

    private static Path agentFile(Path dir, boolean withBootAnchor) throws IOException {
        String anchor = withBootAnchor ? """
                {"type":"anchor","from":"host-monotonic","from_ns":1000000000,"to":"boottime","to_ns":%d}
                """.formatted(1_000_000_000L + BOOT_AHEAD) : "";
        return Files.writeString(dir.resolve("rank_0_activity.jsonl"), anchor + """
                {"type":"api","name":"cuLaunchKernel","thread":1,"stream":7,"start":1010000000,"end":1010010000,"correlation":1,"result":0,"window":0,"clock":"host-monotonic"}
                {"type":"marker","kind":"CAPTURE","name":"capture 0","rank":0,"step":0,"start":1005000000,"end":1030000000,"clock":"host-monotonic"}
                {"type":"marker","kind":"CAPTURE","name":"capture 1","rank":0,"step":1,"start":1090000000,"end":1120000000,"clock":"host-monotonic"}
                """);
    }

    /** rocprofv3 kernels (boottime ns): 3 ms in window 0, 5 ms in window 1, and one between the windows. */
    private static Path rocprofFile(Path dir) throws IOException {
        return Files.writeString(dir.resolve("run_kernel_trace.csv"), """
                Kind,Agent_Id,Queue_Id,Kernel_Name,Correlation_Id,Start_Timestamp,End_Timestamp
                KERNEL_DISPATCH,0,1,gemm,1,%d,%d
                KERNEL_DISPATCH,0,1,between,2,%d,%d
                KERNEL_DISPATCH,0,1,allreduce,3,%d,%d
                """.formatted(BOOT_AHEAD + 1_012_000_000L, BOOT_AHEAD + 1_015_000_000L,
                BOOT_AHEAD + 1_050_000_000L, BOOT_AHEAD + 1_060_000_000L,
                BOOT_AHEAD + 1_100_000_000L, BOOT_AHEAD + 1_105_000_000L));
    }

    @Test
    void eachCaptureWindowIsMeasured_andRocprofKernelsLandInTheWindowsThroughTheBoottimeAnchor(@TempDir Path dir)
            throws IOException {
        Path agent = agentFile(dir, true);
        Path rocprof = rocprofFile(dir);
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--window", "captures", "--format", "json",
                agent.toString(), rocprof.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out().lines()).hasSize(2);
        assertThat(run.out().lines().toList().get(0)).contains("\"window\":\"capture 0\"", "\"window_ns\":25000000",
                "\"busy_ns\":3000000");
        assertThat(run.out().lines().toList().get(1)).contains("\"window\":\"capture 1\"", "\"window_ns\":30000000",
                "\"busy_ns\":5000000");
        assertThat(run.err()).doesNotContain("left out");
    }

    @Test
    void withoutTheBoottimeAnchorTheAgentsWindowsCannotBePlacedBesideRocprofsRecords(@TempDir Path dir)
            throws IOException {
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--window", "captures", "--format", "json",
                agentFile(dir, false).toString(), rocprofFile(dir).toString());
        assertThat(run.out() + run.err()).containsPattern("left out \\d+ records whose clock has no anchor");
    }

    @Test
    void aTraceWithoutCaptureWindowsIsMeasuredWholeWithAWarningNamingWhy(@TempDir Path dir) throws IOException {
        CliRunner.Outcome run = CliRunner.run(null, "analyze", "--window", "captures", rocprofFile(dir).toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out() + run.err()).contains("no capture windows", "measured the whole trace instead");
    }
}
