package dev.aorta.cli;

import dev.aorta.workloads.session.GpuSessionFactory;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** picocli models only the subcommand that the arguments name, and every one when they name none. */
class SubcommandModelTest {
    private static final GpuSessionFactory NO_GPU = gpu -> {
        throw new AssertionError("modelling a command must not open a GPU");
    };

    @Test
    void aNamedSubcommandIsTheOnlyOneModelled() {
        assertThat(AortaCli.commandLine(NO_GPU, "analyze", "--window", "whole", "trace.json").getSubcommands())
                .containsOnlyKeys("analyze");
    }

    @Test
    void anAliasNamesItsSubcommand() {
        assertThat(AortaCli.commandLine(NO_GPU, "comms_compute_overlap", "--iterations", "2").getSubcommands()).containsKey("overlap");
    }

    @Test
    void withoutASubcommandNameEveryOneIsModelled() {
        for (String[] args : new String[][] {{}, {"--help"}, {"-V"}, {"analyz", "trace.json"}}) {
            assertThat(AortaCli.commandLine(NO_GPU, args).getSubcommands().values().stream().distinct())
                    .hasSize(AortaCli.SUBCOMMANDS.size());
        }
    }
}
