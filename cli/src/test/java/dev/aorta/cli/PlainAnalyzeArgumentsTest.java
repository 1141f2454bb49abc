package dev.aorta.cli;

import dev.aorta.workloads.session.GpuSessionFactory;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** analyze's plain arguments, parsed without picocli's model, give what picocli gives; anything else is picocli's. */
class PlainAnalyzeArgumentsTest {
    private static final GpuSessionFactory NO_GPU = gpu -> {
        throw new AssertionError("analyze must not open a GPU");
    };

    /** The command as picocli's model sets it from {@code args} (after "analyze"). */
    private static AnalyzeCommand picocli(String... args) {
        List<String> all = new ArrayList<>(List.of("analyze"));
        all.addAll(Arrays.asList(args));
        CommandLine cli = AortaCli.commandLine(NO_GPU, all.toArray(String[]::new));
        CommandLine.ParseResult parsed = cli.parseArgs(all.toArray(String[]::new));
        return (AnalyzeCommand) parsed.subcommand().commandSpec().userObject();
    }

    private static List<Object> values(AnalyzeCommand c) {
        return Arrays.asList(c.traces, c.window, c.format, c.details, c.top, c.streams, c.benchmark, c.repeat,
                c.verbose, c.classes.communication, c.classes.memory);
    }

    @Test
    void theOptionsTakenAreExactlyAnalyzesOwnLessHelpAndVersion() {
        CommandLine analyze = AortaCli.commandLine(NO_GPU, "analyze", "t.json").getSubcommands().get("analyze");
        Set<String> withValue = new HashSet<>();
        Set<String> flags = new HashSet<>();
        for (OptionSpec o : analyze.getCommandSpec().options()) {
            if (o.usageHelp() || o.versionHelp()) {
                continue;
            }
            assertThat(o.names()).as("one name per option, which is all the plain parse knows").hasSize(1);
            (o.arity().max() == 0 ? flags : withValue).add(o.longestName());
        }
        assertThat(PlainAnalyzeArguments.WITH_VALUE).isEqualTo(withValue);
        assertThat(PlainAnalyzeArguments.FLAGS).isEqualTo(flags);
        assertThat(analyze.getCommandSpec().positionalParameters()).hasSize(1);
    }

    @Test
    void plainArgumentsGiveWhatPicocliGives() {
        String[][] cases = {
                {"t.json"},
                {"a.json", "b.json.gz", "dir"},
                {"--window", "whole", "t.json"},
                {"t.json", "--window=ranges", "--format", "json", "--details"},
                {"--top", "3", "--streams=2", "--benchmark", "--repeat", "4", "--verbose", "t.json", "u.json"},
                {"--comm-pattern", "(?i)nccl|rccl", "--memory-pattern=memcpy", "t.json"},
                {"--top", "+7", "--streams", "0012", "t.json"},
                {"--window", "bogus", "--format", "xml", "t.json"},  // call() rejects them, as it does after picocli
                {"t.json", "--top=0"},
                {"analyze"},  // a trace named like the command
        };
        for (String[] args : cases) {
            AnalyzeCommand plain = PlainAnalyzeArguments.parse(List.of(args));
            assertThat(plain).as(String.join(" ", args)).isNotNull();
            assertThat(values(plain)).as(String.join(" ", args)).isEqualTo(values(picocli(args)));
        }
    }

    @Test
    void everythingElseIsLeftToPicocli() {
        String[][] cases = {
                {},
                {"--window", "whole"},  // no trace
                {"-h"}, {"--help", "t.json"}, {"-V", "t.json"}, {"--version"},
                {"--windw", "whole", "t.json"}, {"--win", "whole", "t.json"}, {"-x", "t.json"},
                {"--top", "3", "--top", "4", "t.json"}, {"--details", "--details", "t.json"},
                {"--details=true", "t.json"}, {"--top", "-1", "t.json"}, {"--top", "ten", "t.json"},
                {"--top", "0x10", "t.json"}, {"--top", "99999999999", "t.json"}, {"--window", "t.json"},
                {"t.json", "--format"}, {"--window=", "t.json"}, {"@args.txt"}, {"--", "t.json"},
                {"-", "t.json"}, {"", "t.json"}, {"t\0.json"},
        };
        for (String[] args : cases) {
            assertThat(PlainAnalyzeArguments.parse(List.of(args))).as(String.join(" ", args)).isNull();
        }
    }

    @Test
    void aFailingCallGetsTheErrorHandlersSentenceAndExitCode() {
        CliRunner.Outcome missing = CliRunner.run(NO_GPU, "analyze", "/no/such/trace.json");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).startsWith("aorta analyze: ").contains("/no/such/trace.json");
        // "--" leaves the same arguments to picocli
        assertThat(CliRunner.run(NO_GPU, "analyze", "--", "/no/such/trace.json")).isEqualTo(missing);
        CliRunner.Outcome badWindow = CliRunner.run(NO_GPU, "analyze", "--window", "bogus", "/no/such/trace.json");
        assertThat(badWindow.exitCode()).isEqualTo(2);
        assertThat(badWindow.err()).isEqualTo("aorta analyze: --window: 'bogus' is not one of steps, whole, ranges,"
                + " captures" + System.lineSeparator());
    }
}
