package dev.aorta.cli;

import picocli.CommandLine;

/**
 * Turns an exception escaping a command into one clear sentence and exit code 2; the stack trace
 * only with {@code --verbose} (or AORTA_VERBOSE=1).
 */
final class ErrorHandler implements CommandLine.IExecutionExceptionHandler {
    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, CommandLine.ParseResult parsed) {
        boolean verbose = "1".equals(System.getenv("AORTA_VERBOSE"))
                || parsed.originalArgs().contains("--verbose");
        String msg = ex.getMessage() == null ? ex.toString() : ex.getMessage();
        cmd.getErr().println("aorta " + cmd.getCommandName() + ": " + msg);
        if (verbose) {
            ex.printStackTrace(cmd.getErr());
        }
        return 2;
    }
}
