package dev.aorta.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code aorta} command: one subcommand per job. */
@Command(name = "aorta", mixinStandardHelpOptions = true, versionProvider = AortaCli.Version.class,
        description = "GPU performance toolkit for the JVM.",
        subcommands = {InfoCommand.class, AttachCommand.class})
public final class AortaCli {

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the CLI and returns its exit code (for tests). */
    public static int run(String... args) {
        CommandLine cli = new CommandLine(new AortaCli());
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
