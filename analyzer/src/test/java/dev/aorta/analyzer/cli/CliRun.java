package dev.aorta.analyzer.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * Runs one analyzer command the way the {@code aorta} CLI does: an exception becomes "aorta CMD: message" on
 * stderr and exit code 2 (the CLI's ErrorHandler lives in the workloads module).
 */
record CliRun(int exitCode, String out, String err) {

    static CliRun of(Object command, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(command);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        cli.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            cmd.getErr().println("aorta " + cmd.getCommandName() + ": " + ex.getMessage());
            return 2;
        });
        int code = cli.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }
}
