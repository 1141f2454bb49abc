package dev.aorta.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Turns an exception escaping a command into one clear sentence and exit code 2; the stack trace
 * only with {@code --verbose} (or AORTA_VERBOSE=1).
 *
 * <p>java.nio's file exceptions carry only a path as their message; here they become "cannot write --output
 * FILE: why", naming the command's option that the failing file belongs to.
 */
final class ErrorHandler implements CommandLine.IExecutionExceptionHandler {
    /** The path options that name what a command writes; every other path argument is read. */
    private static final Set<String> OUTPUT_OPTIONS = Set.of("--output", "--output-dir", "--profile-dir", "--json",
            "--logs");

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, CommandLine.ParseResult parsed) {
        boolean verbose = "1".equals(System.getenv("AORTA_VERBOSE"))
                || parsed.originalArgs().contains("--verbose");
        cmd.getErr().println("aorta " + cmd.getCommandName() + ": " + sentence(ex, cmd));
        if (verbose) {
            ex.printStackTrace(cmd.getErr());
        }
        return 2;
    }

    /**
     * The one sentence for a JVM resource limit, with what to do: the JDK's own words ("Java heap space", "GC
     * overhead limit exceeded", "Direct buffer memory") say which limit, not how to lift it.
     */
    static String resourceSentence(VirtualMachineError e) {
        long maxMb = Runtime.getRuntime().maxMemory() >> 20;
        if (e instanceof StackOverflowError) {
            return "ran out of thread stack (a deeply nested input?); run with a larger stack, e.g."
                    + " AORTA_JAVA_OPTS=-Xss64m";
        }
        String which = e.getMessage() == null ? "memory" : e.getMessage();
        return "ran out of memory (" + which + ", with a heap of at most " + maxMb + " MB); give the JVM more, e.g."
                + " AORTA_JAVA_OPTS=-Xmx" + Math.max(2, 2 * maxMb / 1024) + "g, or analyse fewer or smaller traces at once";
    }

    private static String sentence(Exception ex, CommandLine cmd) {
        Throwable cause = ex instanceof UncheckedIOException u ? u.getCause() : ex;
        if (cause instanceof FileSystemException fs && fs.getFile() != null) {
            return fileSentence(fs, cmd);
        }
        return ex.getMessage() == null ? ex.toString() : ex.getMessage();
    }

    /**
     * "cannot write --output FILE: why" when the failing file is, or is inside, or holds, an argument's path (the
     * closest such argument: a trace folder "." holds everything, an output file inside it is closer).
     */
    private static String fileSentence(FileSystemException fs, CommandLine cmd) {
        Path failed = Path.of(fs.getFile()).toAbsolutePath().normalize();
        String why = reason(fs, failed);
        ArgSpec owner = null;
        Path given = null;
        Path closest = null;
        for (ArgSpec arg : cmd.getCommandSpec().args()) {
            for (Path path : paths(arg.getValue())) {
                Path p = path.toAbsolutePath().normalize();
                boolean related = failed.startsWith(p) || p.startsWith(failed);
                if (related && (closest == null || p.getNameCount() > closest.getNameCount())) {
                    owner = arg;
                    given = path;
                    closest = p;
                }
            }
        }
        if (owner == null) {
            return "cannot access " + fs.getFile() + ": " + why;
        }
        String name = owner instanceof OptionSpec o ? o.longestName() : owner.paramLabel();
        String verb = owner instanceof OptionSpec o && OUTPUT_OPTIONS.contains(o.longestName()) ? "write" : "read";
        return "cannot " + verb + " " + name + " " + given + ": " + (failed.equals(closest) ? why : fs.getFile() + " " + why);
    }

    private static List<Path> paths(Object value) {
        if (value instanceof Path p) {
            return List.of(p);
        }
        if (value instanceof Collection<?> c) {
            return c.stream().filter(Path.class::isInstance).map(Path.class::cast).toList();
        }
        return List.of();
    }

    /** Why the file system refused, in words; the exception's own reason (e.g. "Read-only file system") first. */
    private static String reason(FileSystemException fs, Path failed) {
        if (fs.getReason() != null) {
            return fs.getReason().substring(0, 1).toLowerCase(Locale.ROOT) + fs.getReason().substring(1);
        }
        return switch (fs) {
            case AccessDeniedException e -> "permission denied";
            case NoSuchFileException e -> "no such file or directory";
            case NotDirectoryException e -> "not a directory";
            case DirectoryNotEmptyException e -> "is a directory that is not empty";
            // Files.createDirectories says this of a file standing where a directory must be
            case FileAlreadyExistsException e -> Files.isDirectory(failed) ? "already exists"
                    : "exists and is not a directory";
            default -> "file system error";
        };
    }
}
