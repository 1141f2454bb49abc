package dev.aorta.workloads.launchoverhead.pcie;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DmonParserTest {
    @Test
    void columnsAreFoundByNameAndDashesAreNoValue() {
        DmonParser parser = new DmonParser();
        List<String> lines = List.of("# gpu  txpci  rxpci ", "# Idx   MB/s   MB/s ", "    0     12    340 ",
                "    0      -      - ", "    0     20    100 ");
        List<DmonParser.Sample> samples = lines.stream().map(parser::accept).filter(s -> s != null).toList();
        assertThat(samples).containsExactly(new DmonParser.Sample(340, 12), new DmonParser.Sample(100, 20));
    }

    @Test
    void outputWithoutThePcieColumnsSaysSo() {
        DmonParser parser = new DmonParser();
        assertThat(parser.accept("Failed to initialize NVML: Driver/library version mismatch")).isNull();
        assertThat(parser.lastProblem()).contains("Driver/library version mismatch");
    }

    @Test
    void statisticsAreAveragesAndPeaks() {
        PcieStats.Accumulator a = new PcieStats.Accumulator("test");
        a.add(10, 1);
        a.add(30, 5);
        assertThat(a.stats("unused")).isEqualTo(new PcieStats("test", null, 2, 20, 30, 3, 5));
        assertThat(new PcieStats.Accumulator("NVML device 0").stats("no sample").unavailableReason())
                .isEqualTo("NVML device 0: no sample");
    }
}
