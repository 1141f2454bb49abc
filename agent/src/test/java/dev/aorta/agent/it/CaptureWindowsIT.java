package dev.aorta.agent.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.VirtualMachine;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Marker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Capture windows and clock anchors, end to end: the shaded agent in a child JVM running a fake-GPU application. */
class CaptureWindowsIT {

    @Test
    void anIterationWindowWithBetweenWindowsOffRecordsOnlyItsIterationTaggedWithItsIndex(@TempDir Path dir) throws Exception {
        ChildJvm.Result run = ChildJvm.run(ChildJvm.javaHome(true),
                "output=" + dir + ",wait=1,active=1,between-windows=off,device-activity=none", "example.apps.JCudaApp");
        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.stderr()).contains("capture windows: wait=1,warmup=0,active=1,repeat=0 iterations",
                "capture window 0 opened (iterations 1..1 of the schedule)", "capture window 0 closed");
        Outputs out = Outputs.read(dir, 0);
        // steps 0..2 each launch once; the worker's 1000 launches come after finish(), outside any window
        assertThat(out.calls("cuLaunchKernel")).hasSize(1);
        Marker window = out.markers.stream().filter(m -> m.kind() == Marker.Kind.CAPTURE).findFirst().orElseThrow();
        assertThat(window.step()).isZero();
        assertThat(out.calls).allSatisfy(c -> assertThat(c.startNs()).isBetween(window.startNs(), window.endNs()));
        assertThat(out.markers.stream().filter(m -> m.kind() == Marker.Kind.ITERATION)).hasSize(3);
        assertThat(apiLines(dir)).isNotEmpty().allSatisfy(l -> assertThat(l.path("window").asLong(-1)).isZero());
        // anchors to the epoch at start and at the window
        assertThat(out.anchors.stream().filter(a -> a.to() == ClockDomain.EPOCH)).hasSize(2);
    }

    @Test
    void betweenWindowsOffTakesTheRecordingAdviceOutBetweenWindows_gatedKeepsIt_bothRecordTheSameWindow(@TempDir Path dir)
            throws Exception {
        // JCudaDriver loads in iteration 0, before the window: unwoven, it is woven by retransformation for iteration 1
        ChildJvm.Result off = ChildJvm.run(ChildJvm.javaHome(true), "output=" + dir.resolve("off")
                + ",wait=1,active=1,between-windows=off,device-activity=none,verbose=true", "example.apps.JCudaApp");
        ChildJvm.Result gated = ChildJvm.run(ChildJvm.javaHome(true), "output=" + dir.resolve("gated")
                + ",wait=1,active=1,between-windows=gated,device-activity=none,verbose=true", "example.apps.JCudaApp");
        assertThat(off.exitCode()).as(off.stderr()).isZero();
        assertThat(gated.exitCode()).as(gated.stderr()).isZero();
        assertThat(off.stderr()).containsSubsequence("recording advice woven into", "capture window 0 opened",
                "capture window 0 closed", "recording advice taken out of");
        assertThat(gated.stderr()).doesNotContain("recording advice woven into", "recording advice taken out of");
        Outputs offOut = Outputs.read(dir.resolve("off"), 0);
        Outputs gatedOut = Outputs.read(dir.resolve("gated"), 0);
        assertThat(offOut.calls).extracting(ApiCall::name)
                .containsExactlyInAnyOrderElementsOf(gatedOut.calls.stream().map(ApiCall::name).toList())
                .contains("cuLaunchKernel", "cuMemcpyHtoDAsync", "cublasSgemm", "cudaMemcpyAsync");
        assertThat(offOut.calls("cuLaunchKernel")).hasSize(1);
    }

    @Test
    void weavingTheAdviceInAndOutAtEveryWindowLeavesNothingACollectionDoesNotFree(@TempDir Path dir) throws Exception {
        // the same 310 iterations with 50 and with 150 windows: each weave and unweave makes new versions of the
        // woven classes, and the old ones are kept until a collection unloads them (46 KB a window here without the
        // app's collections); what stays after them must not grow with the windows
        long[] metaspace = new long[2];
        int[] windows = {50, 150};
        for (int i = 0; i < 2; i++) {
            ChildJvm.Result run = ChildJvm.run(ChildJvm.javaHome(false), "output=" + dir.resolve("w" + windows[i])
                    + ",wait=1,active=1,repeat=" + windows[i] + ",between-windows=off,unweave-gap=0ms,device-activity=none,sinks=jsonl",
                    "example.apps.WindowCyclesApp", "310");
            assertThat(run.exitCode()).as(run.stderr()).isZero();
            metaspace[i] = Long.parseLong(run.stdout().lines().filter(l -> l.startsWith("METASPACE "))
                    .findFirst().orElseThrow().substring("METASPACE ".length()));
        }
        assertThat((metaspace[1] - metaspace[0]) / 100).as("metaspace bytes per extra window").isLessThan(8 * 1024);
    }

    @Test
    void anIterationMethodScheduleCountsEachCallFromItsStart(@TempDir Path dir) throws Exception {
        ChildJvm.Result run = ChildJvm.run(ChildJvm.javaHome(true), "output=" + dir
                        + ",iteration-method=example.apps.CollectiveApp#trainStep,wait=1,active=2,between-windows=off",
                "example.apps.CollectiveApp", "method");
        assertThat(run.exitCode()).as(run.stderr()).isZero();
        Outputs out = Outputs.read(dir, 0);
        List<Marker> iterations = out.markers.stream().filter(m -> m.kind() == Marker.Kind.ITERATION).toList();
        assertThat(iterations).extracting(Marker::step).containsExactly(0L, 1L, 2L, 3L);
        Marker window = out.markers.stream().filter(m -> m.kind() == Marker.Kind.CAPTURE).findFirst().orElseThrow();
        long slack = 1_000_000;  // the window's edges and the markers are read on the host clock a few calls apart
        assertThat(window.startNs()).isBetween(iterations.get(0).endNs() - slack, iterations.get(1).startNs() + slack);
        assertThat(window.endNs()).isBetween(iterations.get(2).endNs() - slack, iterations.get(3).startNs() + slack);
        assertThat(out.calls).isNotEmpty()
                .allSatisfy(c -> assertThat(c.startNs()).isBetween(window.startNs(), window.endNs()));
    }

    @Test
    void onJava22PlusWithNativeAccessABoottimeAnchorIsWritten_andItIsTheKernelsBoottime(@TempDir Path dir)
            throws Exception {
        ChildJvm.Result run = ChildJvm.runWith(ChildJvm.javaHome(false), List.of("--enable-native-access=ALL-UNNAMED"),
                "output=" + dir + ",device-activity=none", "example.apps.JCudaApp", "10");
        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.stderr()).doesNotContain("WARNING");
        double uptimeAfter = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
        ClockAnchor boot = Outputs.read(dir, 0).anchors.stream().filter(a -> a.to() == ClockDomain.BOOTTIME)
                .findFirst().orElseThrow(() -> new AssertionError("no boottime anchor; stderr:\n" + run.stderr()));
        assertThat(boot.from()).isEqualTo(ClockDomain.HOST_MONOTONIC);
        // /proc/uptime is CLOCK_BOOTTIME in 10 ms steps, read after the child ended
        assertThat(boot.toNs() / 1e9).isBetween(uptimeAfter - 120, uptimeAfter);
        // BOOTTIME = MONOTONIC + time suspended, and equal on a host that never slept; the two are read one after the
        // other, so the later read may be ahead by the gap between the reads (µs; 1 ms allows a descheduled thread)
        assertThat(boot.toNs()).isGreaterThanOrEqualTo(boot.fromNs() - 1_000_000);
    }

    @Test
    void onDemandOverTheAttachChannel_aSecondWindowIsRefusedNamingTheFirst_detachFlushes(@TempDir Path dir)
            throws Exception {
        Process p = ChildJvm.start(ChildJvm.javaHome(false), "output=" + dir + ",capture=on-demand,between-windows=off",
                "example.apps.JCudaApp", "forever");
        List<String> stderr = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread errors = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getErrorStream()))) {
                in.lines().forEach(stderr::add);
            } catch (java.io.IOException | java.io.UncheckedIOException closed) {
                // the child was destroyed; the lines read are the ones that matter
            }
        });
        errors.start();
        try {
            assertThat(new BufferedReader(new InputStreamReader(p.getInputStream())).readLine()).isEqualTo("RUNNING");
            VirtualMachine vm = VirtualMachine.attach(String.valueOf(p.pid()));
            try {
                String jar = ChildJvm.AGENT_JAR.toAbsolutePath().toString();
                vm.loadAgent(jar, "command=capture");
                assertThat(vm.getSystemProperties().getProperty("aorta.agent.reply"))
                        .isEqualTo("capture window 0 opened (aorta capture until closed)");
                assertThatThrownBy(() -> vm.loadAgent(jar, "command=capture,duration=1s"))
                        .isInstanceOf(AgentInitializationException.class);
                assertThat(vm.getSystemProperties().getProperty("aorta.agent.reply"))
                        .startsWith("refused: capture window 0 is already open (aorta capture until closed, open for");
                assertThatThrownBy(() -> vm.loadAgent(jar, "output=" + dir.resolve("again")))
                        .isInstanceOf(AgentInitializationException.class);
                Thread.sleep(200);
                vm.loadAgent(jar, "command=detach");
                assertThat(vm.getSystemProperties().getProperty("aorta.agent.reply")).startsWith("detached: recording"
                        + " stopped and files flushed in " + dir.toAbsolutePath())
                        .endsWith("(the recording advice is taken out)");
            } finally {
                vm.detach();
            }
            Outputs out = Outputs.read(dir, 0);
            Marker window = out.markers.stream().filter(m -> m.kind() == Marker.Kind.CAPTURE).findFirst().orElseThrow();
            assertThat(window.endNs() - window.startNs()).isGreaterThan(150_000_000L);
            List<ApiCall> launches = out.calls("cuLaunchKernel");
            assertThat(launches).isNotEmpty()
                    .allSatisfy(c -> assertThat(c.startNs()).isBetween(window.startNs(), window.endNs()));
            assertThat(apiLines(dir)).allSatisfy(l -> assertThat(l.path("window").asLong(-1)).isZero());
            assertThat(String.join("\n", stderr)).contains("the aorta agent is already attached to this JVM, writing to "
                    + dir.toAbsolutePath() + "; use aorta detach");
        } finally {
            p.destroyForcibly();
            p.waitFor();
        }
    }

    private static List<JsonNode> apiLines(Path dir) throws Exception {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("rank_0_activity.jsonl"))) {
            JsonNode n = json.readTree(line);
            if (n.path("type").asText().equals("api")) {
                out.add(n);
            }
        }
        return out;
    }
}
