package dev.aorta.workloads.model;

import dev.aorta.workloads.harness.Harness;
import dev.aorta.workloads.harness.HarnessOptions;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.session.GpuSession;
import dev.aorta.workloads.session.GpuSessions;
import dev.aorta.workloads.session.GpuUnavailableException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The model workloads on a real GPU at small sizes, checked against float64; skipped, with the reason, without one. */
class ModelWorkloadsGpuTest {

    private static GpuSession gpu() {
        try {
            return GpuSessions.open(0);
        } catch (GpuUnavailableException e) {
            Assumptions.abort("no GPU here: " + e.getMessage());
            return null;
        }
    }

    private static RunResult run(GpuSession gpu, dev.aorta.workloads.spi.Workload w, int streams,
                                 Map<String, String> params) {
        RunResult r = new Harness(Map.of(), false).run(w, HarnessOptions.defaults(streams).withIterations(5, 2)
                .withParams(params), gpu);
        GpuTelemetryAssertions.assertRecordedBeforeAndAfter(r);
        return r;
    }

    @Test
    void graphSubgraphsEagerAndAsACudaGraphComputeTheReference() {
        try (GpuSession gpu = gpu()) {
            Map<String, String> small = Map.of("num_subgraphs", "5", "input_size", "96", "hidden_size", "160",
                    "output_size", "48", "batch_size", "7");
            for (String mode : new String[] {"eager", "graph"}) {
                java.util.Map<String, String> p = new java.util.HashMap<>(small);
                p.put("mode", mode);
                RunResult r = run(gpu, new GraphSubgraphs(), 5, p);
                assertThat(r.correctness().problem()).as(mode).isNull();
                assertThat(r.throughput().value()).as(mode).isPositive();
            }
        }
    }

    @Test
    void zeroOffloadComputesWithThePrefetchedParametersAndOffloadsItsGradients() {
        try (GpuSession gpu = gpu()) {
            RunResult r = run(gpu, new ZeroOffload(), 4, Map.of("num_layers", "3", "hidden_size", "192",
                    "batch_size", "5"));
            assertThat(r.correctness().problem()).isNull();
            assertThat(r.streams()).allSatisfy(s -> assertThat(s.kernelCount()).as("stream " + s.index()).isPositive());
        }
    }

    @Test
    void torchCompileRegionsAsGraphsAndOpByOpComputeTheReference() {
        try (GpuSession gpu = gpu()) {
            for (String graphs : new String[] {"true", "false"}) {
                RunResult r = run(gpu, new TorchCompile(), 8, Map.of("hidden_size", "64", "batch_size", "3",
                        "seq_len", "5", "graphs", graphs));
                assertThat(r.correctness().problem()).as("graphs=" + graphs).isNull();
                assertThat(r.streams()).allSatisfy(s -> assertThat(s.kernelCount()).isPositive());
            }
        }
    }
}
