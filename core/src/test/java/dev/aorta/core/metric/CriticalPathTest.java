package dev.aorta.core.metric;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The critical path walked back through launches, stream order, event waits and synchronizations. */
class CriticalPathTest {

    private static DeviceActivity kernel(String name, long stream, long start, long end, long correlation) {
        return new DeviceActivity(ActivityKind.KERNEL, name, 0, 0, stream, start, end, correlation,
                DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 0, ClockDomain.CUPTI);
    }

    private static ApiCall call(String name, long stream, long start, long end, long correlation) {
        return new ApiCall(name, 1, stream, start, end, correlation, 0, Map.of(), ClockDomain.CUPTI);
    }

    private static CriticalPath.Graph graph(List<DeviceActivity> acts, List<ApiCall> calls, List<Dependency> deps) {
        int[] launchOf = new int[acts.size()];
        for (int i = 0; i < acts.size(); i++) {
            long corr = acts.get(i).correlationId();
            launchOf[i] = java.util.stream.IntStream.range(0, calls.size())
                    .filter(k -> calls.get(k).correlationId() == corr).findFirst().orElse(-1);
        }
        return new CriticalPath.Graph(acts, i -> true, launchOf, calls, deps);
    }

    /**
     * Launch L1 [0,10] → K1 [20,100]; cudaDeviceSynchronize [15,105] waits for K1; launch L2 [120,130] → K2
     * [140,200]. Back from K2: launched late (L2 at 120, after K1 ended at 100), so device 60 (K2) + launch 20
     * (120→140); the thread: 15 between the sync's end and L2 (host); the sync's last 5 after K1 ended (host), then
     * K1 80 (device) and its launch 20 (0→20). Host 20, device 140, launch 40: the 200 ns from 0 to 200.
     */
    @Test
    void aLateLaunchAfterASyncPutsTheHostOnThePath() {
        List<DeviceActivity> acts = List.of(kernel("k1", 7, 20, 100, 1), kernel("k2", 7, 140, 200, 2));
        List<ApiCall> calls = List.of(call("cudaLaunchKernel", 7, 0, 10, 1),
                call("cudaDeviceSynchronize", 0, 15, 105, 3), call("cudaLaunchKernel", 7, 120, 130, 2));
        CriticalPath p = CriticalPath.of(graph(acts, calls, List.of()), 1, 0);

        assertThat(p.startNs()).isZero();
        assertThat(p.endNs()).isEqualTo(200);
        assertThat(p.hostNs()).isEqualTo(20);
        assertThat(p.deviceNs()).isEqualTo(140);
        assertThat(p.launchNs()).isEqualTo(40);
        assertThat(p.hostNs() + p.deviceNs() + p.launchNs()).isEqualTo(p.lengthNs());
        assertThat(p.deviceActivities()).isEqualTo(2);
    }

    /**
     * Launched early (all calls at 0..3), K2 on stream 8 waits for an event recorded on stream 7 after K1: the path
     * from K2 [150,170] goes to K1 [10,150] (its end binds: 150 > K2's launch at 2), then K1's launch at 1. Device
     * 20 + 140, launch 9 (1→10), host 1 (the thread from 0 to L1's start at 1, after L0 [0,1]); lower bound 0.
     */
    @Test
    void anEventWaitPutsTheOtherStreamsWorkOnThePath() {
        List<DeviceActivity> acts = List.of(kernel("k1", 7, 10, 150, 1), kernel("k2", 8, 150, 170, 2));
        List<ApiCall> calls = List.of(call("cudaMalloc", 0, 0, 1, 9), call("cudaLaunchKernel", 7, 1, 2, 1),
                call("cudaLaunchKernel", 8, 2, 3, 2));
        List<Dependency> deps = List.of(new Dependency(5, 7, 1, 8, 2, ClockDomain.CUPTI));
        CriticalPath p = CriticalPath.of(graph(acts, calls, deps), 1, 0);

        assertThat(p.deviceNs()).isEqualTo(160);
        assertThat(p.launchNs()).isEqualTo(9);
        assertThat(p.hostNs()).isEqualTo(1);
        assertThat(p.lengthNs()).isEqualTo(170);
    }

    /** A lower bound cuts the path: only the time after it counts. */
    @Test
    void thePathStopsAtTheLowerBound() {
        List<DeviceActivity> acts = List.of(kernel("k1", 7, 20, 100, 1), kernel("k2", 7, 100, 180, 2));
        List<ApiCall> calls = List.of(call("cudaLaunchKernel", 7, 0, 5, 1), call("cudaLaunchKernel", 7, 6, 9, 2));
        CriticalPath p = CriticalPath.of(graph(acts, calls, List.of()), 1, 50);

        assertThat(p.startNs()).isEqualTo(50);
        assertThat(p.deviceNs()).isEqualTo(130);
        assertThat(p.hostNs() + p.launchNs()).isZero();
    }

    /** A sync call is one whose name contains "synchronize" or "synchronise" in any case, as (?i)synchroni[sz]e finds. */
    @Test
    void aSyncCallIsNamedSoInAnyCaseAndEitherSpelling() {
        java.util.regex.Pattern regex = java.util.regex.Pattern.compile("(?i)synchroni[sz]e");
        for (String name : new String[] {"cudaStreamSynchronize", "cudaDeviceSynchronize", "hipStreamSynchronise",
                "cuCtxSynchronize", "SYNCHRONIZE", "xSynChroNiSe", "synchronize", "synchroniz", "synchroni", "Synchronous",
                "cudaLaunchKernel", "", "cudaEventSynchronizeX", "ssynchronizee", "synchronisynchronize"}) {
            assertThat(CriticalPath.isSync(name)).as(name).isEqualTo(regex.matcher(name).find());
        }
    }
}
