package dev.aorta.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Every command's {@code -h} prints its usage and nothing on stderr: descriptions are picocli format strings. */
class UsageHelpTest {

    /** The names of every command and subcommand, hidden ones included (aliases once, by their name). */
    private static List<List<String>> everyCommand() {
        List<List<String>> commands = new ArrayList<>();
        collect(AortaCli.commandLine(gpu -> {
            throw new AssertionError("-h must not open a GPU");
        }), new ArrayList<>(), commands);
        return commands;
    }

    private static void collect(CommandLine cmd, List<String> path, List<List<String>> into) {
        for (CommandLine sub : cmd.getSubcommands().values().stream().distinct().toList()) {
            List<String> subPath = new ArrayList<>(path);
            subPath.add(sub.getCommandName());
            into.add(subPath);
            collect(sub, subPath, into);
        }
    }

    @Test
    void everyCommandsHelpRendersWithoutPicocliWarnings() {
        List<List<String>> commands = everyCommand();
        assertThat(commands).extracting(c -> c.getFirst()).contains("analyze", "compare", "run", "launch");
        for (List<String> command : commands) {
            List<String> args = new ArrayList<>(command);
            args.add("-h");
            CliRunner.Outcome o = CliRunner.run(null, args.toArray(String[]::new));
            assertThat(o.exitCode()).as(String.join(" ", args)).isZero();
            assertThat(o.out()).as(String.join(" ", args)).contains("Usage: aorta " + String.join(" ", command));
            assertThat(o.err()).as(String.join(" ", args)).isEmpty();
            assertThat(o.out()).as(String.join(" ", args)).doesNotContain("[picocli WARN]");
        }
    }
}
