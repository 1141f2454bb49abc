package dev.aorta.core.io;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Writes output files atomically: into a temporary file beside the target, then moved over it, so that readers
 * see either the old content or the complete new one, never a part.
 *
 * <p>A temporary file is named {@code .<target>.<pid>.<nanos>.tmp}. It is removed when the write fails, when the
 * JVM exits during the write (Ctrl-C, SIGTERM: a shutdown hook), and, for a process killed outright (SIGKILL, out
 * of memory), by the next write of the same target, which removes the temporary files of processes no longer alive.
 */
public final class AtomicFiles {
    /** Temporary files being written now, removed by the shutdown hook if the JVM exits before they are moved. */
    private static final Set<Path> IN_PROGRESS = ConcurrentHashMap.newKeySet();
    private static final Pattern TEMPORARY = Pattern.compile("\\.(.+)\\.(\\d+)\\.(\\d+)\\.(tmp|old)");

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> IN_PROGRESS.forEach(AtomicFiles::deleteQuietly),
                "aorta-remove-temporary-files"));
    }

    private AtomicFiles() {
    }

    /** What writes the content. */
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    public static void write(Path target, Content content) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        removeStale(target);
        // a unique name beside the target (same file system, so the move is atomic), with default permissions
        Path tmp = temporary(target, "tmp");
        IN_PROGRESS.add(tmp);
        try {
            try (OutputStream out = Files.newOutputStream(tmp)) {
                content.writeTo(out);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (FileSystemException e) {
            throw tmp.toString().equals(e.getFile()) ? onTarget(e, target) : e;
        } finally {
            Files.deleteIfExists(tmp);
            IN_PROGRESS.remove(tmp);
        }
    }

    /** What writes a set of files into a folder. */
    public interface FolderContent {
        void writeInto(Path folder) throws IOException;
    }

    /**
     * Writes a set of files (a report: its summary, plots and HTML) so that the folder {@code target} holds either
     * the old set or the complete new one, never a new summary beside old plots: the set is written into a
     * temporary folder beside it, which then takes the target's place (two renames; the old folder is removed
     * after). A target that holds files the new set does not replace (a folder the user also keeps other things
     * in) is not swapped, so nothing of the user's is lost: the new files are moved in one by one instead, the
     * one named {@code last} at the end, so that it is new only once all the others are.
     */
    public static void writeFolder(Path target, String last, FolderContent content) throws IOException {
        Path abs = target.toAbsolutePath().normalize();
        Files.createDirectories(abs.getParent());
        removeStale(abs);
        Path staging = temporary(abs, "tmp");
        IN_PROGRESS.add(staging);
        try {
            Files.createDirectory(staging);
            content.writeInto(staging);
            if (!Files.exists(abs)) {
                Files.move(staging, abs, StandardCopyOption.ATOMIC_MOVE);
            } else if (onlyReplacedFiles(abs, staging)) {
                Path old = temporary(abs, "old");
                IN_PROGRESS.add(old);
                Files.move(abs, old, StandardCopyOption.ATOMIC_MOVE);
                Files.move(staging, abs, StandardCopyOption.ATOMIC_MOVE);
                deleteQuietly(old);
                IN_PROGRESS.remove(old);
            } else {
                try (Stream<Path> files = Files.list(staging)) {
                    for (Path f : files.sorted(Comparator.comparing((Path f) -> f.getFileName().toString().equals(last)))
                            .toList()) {
                        Files.move(f, abs.resolve(f.getFileName().toString()), StandardCopyOption.REPLACE_EXISTING,
                                StandardCopyOption.ATOMIC_MOVE);
                    }
                }
            }
        } catch (FileSystemException e) {
            throw e.getFile() != null && e.getFile().startsWith(staging.toString()) ? onTarget(e, target) : e;
        } finally {
            deleteQuietly(staging);
            IN_PROGRESS.remove(staging);
        }
    }

    /** Whether every entry of {@code target} is a plain file that {@code staging} has a new version of. */
    private static boolean onlyReplacedFiles(Path target, Path staging) throws IOException {
        if (!Files.isDirectory(target)) {
            return false;
        }
        try (Stream<Path> entries = Files.list(target)) {
            return entries.allMatch(e -> Files.isRegularFile(e) && Files.exists(staging.resolve(e.getFileName().toString())));
        }
    }

    private static Path temporary(Path target, String suffix) {
        return target.toAbsolutePath().getParent().resolve("." + target.getFileName() + "."
                + ProcessHandle.current().pid() + "." + System.nanoTime() + "." + suffix);
    }

    /** Removes the temporary files and folders of {@code target} left by processes that are no longer alive. */
    private static void removeStale(Path target) {
        Path dir = target.toAbsolutePath().getParent();
        String name = target.getFileName().toString();
        try (Stream<Path> entries = Files.list(dir)) {
            entries.filter(e -> {
                Matcher m = TEMPORARY.matcher(e.getFileName().toString());
                return m.matches() && m.group(1).equals(name)
                        && ProcessHandle.of(Long.parseLong(m.group(2))).map(h -> !h.isAlive()).orElse(true);
            }).forEach(AtomicFiles::deleteQuietly);
        } catch (IOException | RuntimeException e) {
            // a folder that cannot be listed fails the write itself, with its own message
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                try (Stream<Path> walk = Files.walk(p)) {
                    for (Path x : walk.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(x);
                    }
                }
            } else {
                Files.deleteIfExists(p);
            }
        } catch (IOException | RuntimeException e) {
            // best effort: the next write of the same target removes what is left
        }
    }

    /** A failure of the temporary file, told as one of the target: the user named the target, never the other. */
    private static FileSystemException onTarget(FileSystemException e, Path target) {
        String file = target.toString();
        FileSystemException told = e instanceof AccessDeniedException ? new AccessDeniedException(file, null, e.getReason())
                : e instanceof NoSuchFileException ? new NoSuchFileException(file, null, e.getReason())
                : new FileSystemException(file, null, e.getReason());
        told.initCause(e);
        return told;
    }
}
