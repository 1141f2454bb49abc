package dev.aorta.analyzer.read;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.analyzer.metrics.AnalysisOptions;
import dev.aorta.analyzer.metrics.JvmAttribution;
import dev.aorta.analyzer.metrics.TraceAnalysis;
import dev.aorta.analyzer.metrics.WindowMode;
import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.analyzer.trace.JvmPause;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import jdk.jfr.Category;
import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import jdk.jfr.StackTrace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real JFR recording made here with events named as the agent names them (read generically by field names)
 * and a forced GC between two kernels, so the idle gap between them must be attributed to the GC.
 */
class JfrReaderTest {

    @Name("aorta.KernelLaunch")
    @Category("aorta")
    @StackTrace(false)
    static class KernelLaunch extends Event {
        String name;
        long stream;
        long startNs;
        long endNs;
        long correlationId;
    }

    @Name("aorta.DeviceActivity")
    @Category("aorta")
    @StackTrace(false)
    static class DeviceActivityEvent extends Event {
        String name;
        String kind;
        long stream;
        long startNs;
        long endNs;
        long correlationId;
    }

    @Name("aorta.Iteration")
    @Category("aorta")
    @StackTrace(false)
    static class Iteration extends Event {
        long step;
        long startNs;
        long endNs;
    }

    private static void kernel(String name, long correlation, long startNs, long endNs) {
        KernelLaunch launch = new KernelLaunch();
        launch.begin();
        launch.name = "cuLaunchKernel";
        launch.stream = 7;
        launch.startNs = startNs - 1_000;
        launch.endNs = startNs - 500;
        launch.correlationId = correlation;
        launch.commit();
        DeviceActivityEvent a = new DeviceActivityEvent();
        a.begin();
        a.name = name;
        a.kind = "KERNEL";
        a.stream = 7;
        a.startNs = startNs;
        a.endNs = endNs;
        a.correlationId = correlation;
        a.commit();
    }

    private static Path record(Path dir) throws IOException {
        Path file = dir.resolve("rank_0_agent.jfr");
        try (Recording r = new Recording()) {
            r.enable("aorta.KernelLaunch");
            r.enable("aorta.DeviceActivity");
            r.enable("aorta.Iteration");
            r.enable("jdk.GarbageCollection");
            r.enable("jdk.GCPhasePause");
            r.enable("jdk.SafepointBegin");
            r.enable("jdk.SafepointEnd");
            r.start();
            long t0 = System.nanoTime();
            kernel("gemm_before_gc", 1, t0, t0 + 100_000);
            long beforeGc = System.nanoTime();
            System.gc();
            long afterGc = System.nanoTime();
            kernel("gemm_after_gc", 2, afterGc, afterGc + 100_000);
            Iteration it = new Iteration();
            it.step = 0;
            it.startNs = t0;
            it.endNs = afterGc + 200_000;
            it.commit();
            r.stop();
            r.dump(file);
            assertThat(afterGc).isGreaterThan(beforeGc);
        }
        return file;
    }

    @Test
    void aortaEventsAreReadByFieldNameAndGcPausesFillTheIdleGap(@TempDir Path tmp) throws IOException {
        Path jfr = record(tmp);
        TraceSet set = TraceLoader.withInstalledReaders().load(List.of(jfr));
        RankTrace r = set.ranks().iterator().next();
        assertThat(r.activities()).extracting(DeviceActivity::name).containsExactly("gemm_before_gc", "gemm_after_gc");
        assertThat(r.activities()).allMatch(a -> a.clock() == ClockDomain.HOST_MONOTONIC && a.stream() == 7);
        assertThat(r.apiCalls()).extracting(ApiCall::name).containsOnly("cuLaunchKernel");
        assertThat(r.markers()).extracting(Marker::kind).containsExactly(Marker.Kind.ITERATION);
        assertThat(r.jvmPauses()).filteredOn(p -> p.kind() == JvmPause.Kind.GC).isNotEmpty();
        assertThat(r.anchors()).singleElement().satisfies(a -> {
            assertThat(a.from()).isEqualTo(ClockDomain.HOST_MONOTONIC);
            assertThat(a.to()).isEqualTo(ClockDomain.EPOCH);
        });

        RankTimeline t = new RankTimeline(r, ActivityClassifier.defaults());
        assertThat(t.jvmPauses()).isNotEmpty();
        TraceAnalysis analysis = TraceAnalysis.of(set, new AnalysisOptions(WindowMode.WHOLE, ActivityClassifier.defaults(), 5));
        JvmAttribution jvm = analysis.windows().get(0).jvm();
        assertThat(jvm).isNotNull();
        assertThat(jvm.idleGaps()).isEqualTo(1);
        assertThat(jvm.gapsWithGc()).isEqualTo(1);
        assertThat(jvm.idleDuringGcNs()).isPositive();
        // launch latency from the KernelLaunch records: 1 µs each
        assertThat(analysis.windows().get(0).launch().latency().count()).isEqualTo(2);
        assertThat(analysis.windows().get(0).launch().latency().p50()).isEqualTo(1_000);
    }

    @Test
    void aRecordingCutShortIsReadUpToTheCutOrRejectedWithOneClearMessage(@TempDir Path tmp) throws IOException {
        Path full = record(tmp);
        byte[] bytes = java.nio.file.Files.readAllBytes(full);
        Path cut = java.nio.file.Files.write(tmp.resolve("cut.jfr"), java.util.Arrays.copyOf(bytes, bytes.length * 2 / 3));
        try {
            TraceSet set = TraceLoader.withInstalledReaders().load(List.of(cut));
            assertThat(set.warnings()).anySatisfy(w -> assertThat(w).contains("cut.jfr"));
        } catch (TraceFormatException e) {
            assertThat(e.getMessage()).contains("cut.jfr");
        }
    }
}
