package dev.aorta.cli;

import dev.aorta.launch.LauncherWatch;
import dev.aorta.workloads.session.GpuSessionFactory;
import dev.aorta.workloads.session.GpuSessions;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code aorta} command: one subcommand per job. */
@Command(name = "aorta", mixinStandardHelpOptions = true, versionProvider = AortaCli.Version.class,
        description = "GPU performance toolkit for the JVM.",
        subcommands = {InfoCommand.class, CheckCommand.class, ListCommand.class, RunCommand.class, SweepCommand.class,
                RunPriorityCommand.class, CompareCommand.class, LaunchOverheadCommand.class, OverheadCommand.class,
                AnalyzeCommand.class, ReportCommand.class, MergeCommand.class, AttachCommand.class, OverlapCommand.class,
                LaunchCommand.class, LaunchProbeCommand.class, ProfileCommand.class})
public final class AortaCli {

    public static void main(String[] args) {
        LauncherWatch.startIfLaunched();
        System.exit(run(args));
    }

    /** Runs the CLI and returns its exit code (for tests). */
    public static int run(String... args) {
        return run(GpuSessions::open, args);
    }

    /** Runs the CLI with GPU sessions from {@code gpu} (tests pass a test double). */
    public static int run(GpuSessionFactory gpu, String... args) {
        CommandLine cli = new CommandLine(new AortaCli(), new CommandFactory(gpu));
        cli.setExecutionExceptionHandler(new ErrorHandler());
        return cli.execute(args);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = AortaCli.class.getPackage().getImplementationVersion();
            return new String[] {"aorta " + (v == null ? "development build" : v)};
        }
    }
}
