package dev.aorta.trainer.config;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigOptionsTest {
    @Command(name = "probe")
    static final class Probe {
        @Mixin
        ConfigOptions options = new ConfigOptions();
    }

    private static TrainerConfig parse(String... args) {
        Probe probe = new Probe();
        new CommandLine(probe).parseArgs(args);
        return probe.options.load();
    }

    @Test
    void severalOverridesAfterOneFlagAndRepeatedFlagsAreAllKept() {
        TrainerConfig c = parse("--config", "../config/mi350_overlap_stress.yaml",
                "--override", "training.max_steps=12", "model.num_layers=2",
                "--override", "optimizer.lr=0.001");
        assertThat(c.training().maxSteps()).isEqualTo(12);
        assertThat(c.model().numLayers()).isEqualTo(2);
        assertThat(c.optimizer().lr()).isEqualTo(0.001);
        assertThat(c.model().modelDim()).isEqualTo(1024); // from the file
    }

    @Test
    void withoutOptionsTheDefaultsApply() {
        assertThat(parse()).isEqualTo(TrainerConfig.defaults());
    }
}
