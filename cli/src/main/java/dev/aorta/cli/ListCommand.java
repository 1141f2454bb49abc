package dev.aorta.cli;

import dev.aorta.workloads.harness.WorkloadRegistry;
import dev.aorta.workloads.spi.Workload;
import dev.aorta.workloads.spi.WorkloadParameter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

@Command(name = "list", mixinStandardHelpOptions = true, description = "List the workloads on the class path (bundled and from plugin jars).")
final class ListCommand implements Callable<Integer> {
    @Option(names = {"-c", "--category"}, paramLabel = "CATEGORY", description = "Only workloads of this category.")
    String category;

    @Option(names = {"-v", "--verbose"}, description = "Also show each workload's parameters with defaults.")
    boolean verbose;

    @Override
    public Integer call() {
        List<Workload> all = WorkloadRegistry.onClassPath().all();
        List<Workload> shown = all;
        if (category != null) {
            shown = all.stream().filter(w -> w.category().equalsIgnoreCase(category)).toList();
            if (shown.isEmpty()) {
                throw new IllegalArgumentException("--category " + category + ": no such category; known: "
                        + all.stream().map(Workload::category).collect(Collectors.toCollection(TreeSet::new)));
            }
        }
        System.out.printf("%-22s %-3s %-10s %-8s %-4s %-7s %s%n", "WORKLOAD", "PRI", "CATEGORY", "STREAMS", "REC",
                "SWITCH", "DESCRIPTION");
        for (Workload w : shown) {
            System.out.printf("%-22s %-3s %-10s %-8s %-4d %-7s %s%n", w.name(), w.priority().label(), w.category(),
                    w.streamRange(), w.recommendedStreams(), w.switchLatencySensitivity().label(), w.description());
            if (verbose) {
                for (WorkloadParameter p : w.parameters()) {
                    System.out.printf("    --param %s=%s  %s (%s)%n", p.name(), p.defaultValue(), p.description(),
                            p.allowed());
                }
                if (w.usesDtype()) {
                    System.out.println("    --dtype fp32|tf32|bf16|fp16  GEMM element type (default fp32)");
                }
                String own = WorkloadCommandArgs.commandOf(w.name());
                if (own != null) {
                    System.out.println("    aorta run " + w.name() + " takes the options of aorta " + own
                            + "; the -p parameters apply to sweep and run-priority");
                }
                System.out.println("    stream roles at " + w.recommendedStreams() + " streams: "
                        + java.util.stream.IntStream.range(0, w.recommendedStreams())
                        .mapToObj(i -> w.streamRole(i, w.recommendedStreams())).toList());
            }
        }
        System.out.println();
        System.out.println("STREAMS: allowed stream counts; REC: streams used when --streams is not given; "
                + "SWITCH: how strongly results depend on hardware-queue switch cost; PRI -: in no tier.");
        return 0;
    }
}
