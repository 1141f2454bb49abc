package dev.aorta.cli;

import dev.aorta.workloads.overhead.AbRuns;
import dev.aorta.workloads.overhead.Interposer;
import dev.aorta.workloads.overhead.OverheadReport;
import dev.aorta.workloads.overhead.PairedComparison;
import dev.aorta.workloads.result.ResultJson;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

@Command(name = "overhead", mixinStandardHelpOptions = true,
        description = {"What an interposer costs: runs an aorta command without (A) and with (B) our agent and/or an "
                + "LD_PRELOAD library, alternating A B A B, and compares the times in their result files: medians, "
                + "B/A with a 95%% confidence interval, and a verdict against --threshold.",
                "Example: aorta overhead --agent device-activity=none --runs 5 -- launch-overhead --patterns balanced --seconds 10",
                "Multi-GPU: aorta overhead --agent '' --runs 3 -- launch --nproc-per-node 2 -- launch-overhead "
                        + "--patterns all_reduce,combined --seconds 5 (-o reaches the ranks; rank 0 writes the summary over all ranks).",
                "Exit code 0: every metric within the threshold; 1: one exceeds it; 3: none exceeds, one is inconclusive."})
final class OverheadCommand implements Callable<Integer> {
    /**
     * aorta subcommands accepted as the first word of the child command: those that write a result with -o, and
     * launch, whose ranks' command gets the -o (added last, so after launch's --); rank 0 of launch-overhead
     * writes the result of all ranks.
     */
    private static final Set<String> AORTA_COMMANDS = Set.of("run", "launch-overhead", "launch", "train");

    @Option(names = "--agent", paramLabel = "OPTIONS",
            description = "B runs get -javaagent:AGENT_JAR=OPTIONS (through AORTA_JAVA_OPTS, which bin/aorta passes to java); "
                    + "'' for the agent's defaults.")
    String agentOptions;

    @Option(names = "--agent-jar", paramLabel = "JAR",
            description = "The agent jar (default: lib/aorta-agent.jar of this installation).")
    Path agentJar;

    @Option(names = "--preload", paramLabel = "LIB",
            description = "B runs get LD_PRELOAD=LIB; checked to exist and load before any run.")
    Path preload;

    @Option(names = "--runs", defaultValue = "5", description = "A and B runs each, at least 2 (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--threshold", defaultValue = "0.01",
            description = "Tolerated slowdown of B as a fraction, e.g. 0.01 = 1%% (default: ${DEFAULT-VALUE}).")
    double threshold;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the comparison as JSON (atomically).")
    Path json;

    @Option(names = "--logs", paramLabel = "DIR",
            description = "Keep each run's output and result here (default: a new temporary directory).")
    Path logs;

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    @Parameters(paramLabel = "COMMAND", arity = "0..*",
            description = "After --: the command to measure, an aorta run, launch-overhead or train command line, or an "
                    + "aorta launch of one (a first word 'run', 'launch-overhead', 'train' or 'launch' means this "
                    + "installation's bin/aorta); without -o, overhead adds it at the end.")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        if (runs < 2) {
            throw new IllegalArgumentException("--runs must be 2 or more (a confidence interval needs two pairs), got " + runs);
        }
        if (!(threshold > 0) || Double.isInfinite(threshold)) {
            throw new IllegalArgumentException("--threshold must be a positive fraction such as 0.01 (1%), got " + threshold);
        }
        List<String> child = childCommand();
        Path jar = agentJar != null || agentOptions == null ? agentJar : home().resolve("lib/aorta-agent.jar");
        Interposer interposer = Interposer.checked(agentOptions, jar, preload);
        Path logDir = logs != null ? logs : Files.createTempDirectory("aorta-overhead-");
        System.out.println("command: " + String.join(" ", child) + " -o <log dir>/{A,B}<i>.json");
        AbRuns.Outcome outcome = new AbRuns(child, interposer, logDir, System.out).run(runs);
        List<PairedComparison> comparisons = OverheadReport.compare(outcome, threshold);
        OverheadReport.print(comparisons, threshold, interposer.describe(), System.out);
        System.out.println("logs and results of every run: " + logDir);
        if (json != null) {
            ResultJson.write(json, OverheadReport.toJson(comparisons, threshold, child, interposer, logDir.toString()));
            System.out.println("result: " + json);
        }
        return switch (OverheadReport.overall(comparisons)) {
            case WITHIN -> 0;
            case EXCEEDS -> 1;
            case INCONCLUSIVE -> 3;
        };
    }

    private List<String> childCommand() {
        if (command.isEmpty()) {
            throw new IllegalArgumentException("give the command to measure after --, e.g. "
                    + "aorta overhead --agent '' -- run tiny_kernel_stress --kernel-timing event-pairs");
        }
        for (String arg : command) {
            if (arg.equals("-o") || arg.equals("--output") || arg.startsWith("--output=")
                    || (arg.startsWith("-o") && arg.length() > 2 && !arg.startsWith("--"))) {
                throw new IllegalArgumentException("the command must not write its own result (" + arg
                        + "): aorta overhead adds -o for every run");
            }
        }
        List<String> child = new ArrayList<>(command);
        if (AORTA_COMMANDS.contains(child.getFirst())) {
            child.addFirst(home().resolve("bin/aorta").toString());
        }
        return child;
    }

    /** This installation (bin/aorta sets aorta.home). */
    private static Path home() {
        String home = System.getProperty("aorta.home");
        if (home == null) {
            throw new IllegalArgumentException("aorta.home is not set (not started through bin/aorta): give the full "
                    + "child command (dist/bin/aorta run ...) and --agent-jar");
        }
        return Path.of(home);
    }
}
