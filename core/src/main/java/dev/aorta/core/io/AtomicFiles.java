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

/**
 * Writes output files atomically: into a temporary file beside the target, then moved over it, so that readers
 * see either the old content or the complete new one, never a part.
 */
public final class AtomicFiles {
    private AtomicFiles() {
    }

    /** What writes the content. */
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    public static void write(Path target, Content content) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        // a unique name beside the target (same file system, so the move is atomic), with default permissions
        Path tmp = dir.resolve("." + target.getFileName() + "." + ProcessHandle.current().pid() + "."
                + System.nanoTime() + ".tmp");
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
