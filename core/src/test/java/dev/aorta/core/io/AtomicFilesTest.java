package dev.aorta.core.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class AtomicFilesTest {
    @TempDir
    Path dir;

    private static AtomicFiles.Content text(String s) {
        return out -> out.write(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aWriterThatFailsHalfWayLeavesTheOldFileAndNoTemporaryFile() throws Exception {
        Path target = dir.resolve("sub/result.json");
        AtomicFiles.write(target, text("old"));
        assertThatThrownBy(() -> AtomicFiles.write(target, out -> {
            out.write("half".getBytes(StandardCharsets.UTF_8));
            throw new IOException("disk full");
        })).hasMessage("disk full");
        assertThat(Files.readString(target)).isEqualTo("old");
        try (var files = Files.list(target.getParent())) {
            assertThat(files).containsExactly(target);
        }
    }

    @Test
    void aCompleteWriteReplacesTheFileWithTheUsualPermissionsOfANewFile() throws Exception {
        Path target = dir.resolve("r.json");
        AtomicFiles.write(target, text("one"));
        AtomicFiles.write(target, text("two"));
        assertThat(Files.readString(target)).isEqualTo("two");
        if (Files.getFileStore(target).supportsFileAttributeView("posix")) {
            Path plain = Files.createFile(dir.resolve("plain"));
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
                    .isEqualTo(PosixFilePermissions.toString(Files.getPosixFilePermissions(plain)));
        }
    }

    @Test
    void aTemporaryFileThatCannotBeCreatedIsReportedAsTheTarget() {
        assumeTrue(Files.isDirectory(Path.of("/proc")), "needs Linux's /proc, where no file can be created");
        Path target = Path.of("/proc/aorta_result.json");
        assertThatThrownBy(() -> AtomicFiles.write(target, text("x"))).isInstanceOf(FileSystemException.class)
                .satisfies(e -> assertThat(((FileSystemException) e).getFile()).isEqualTo(target.toString()));
    }

    @Test
    void theTemporaryFileOfAKilledWriterIsRemovedByTheNextWriteOfTheSameTarget() throws Exception {
        Path target = dir.resolve("merged.json");
        long deadPid = ProcessHandle.current().pid() + 1_000_000_000L;  // beyond any pid Linux hands out
        Path stale = Files.writeString(dir.resolve(".merged.json." + deadPid + ".123.tmp"), "half");
        Path live = Files.writeString(dir.resolve(".merged.json." + ProcessHandle.current().pid() + ".5.tmp"), "busy");
        Path other = Files.writeString(dir.resolve(".other.json." + deadPid + ".123.tmp"), "not ours");
        AtomicFiles.write(target, text("new"));
        assertThat(stale).doesNotExist();
        assertThat(live).as("a living process may still be writing it").exists();
        assertThat(other).as("another target's").exists();
    }

    @Test
    void aFolderIsReplacedAsAWholeOrNotAtAll() throws Exception {
        Path report = dir.resolve("report");
        AtomicFiles.writeFolder(report, "summary.json", f -> {
            Files.writeString(f.resolve("plot.png"), "old plot");
            Files.writeString(f.resolve("summary.json"), "old summary");
        });
        assertThatThrownBy(() -> AtomicFiles.writeFolder(report, "summary.json", f -> {
            Files.writeString(f.resolve("summary.json"), "new summary");
            throw new IOException("killed while drawing");
        })).hasMessage("killed while drawing");
        assertThat(Files.readString(report.resolve("summary.json"))).isEqualTo("old summary");
        AtomicFiles.writeFolder(report, "summary.json", f -> {
            Files.writeString(f.resolve("plot.png"), "new plot");
            Files.writeString(f.resolve("summary.json"), "new summary");
        });
        assertThat(Files.readString(report.resolve("plot.png"))).isEqualTo("new plot");
        try (var files = Files.list(dir)) {
            assertThat(files).as("no staging or old folder left").containsExactly(report);
        }
    }

    @Test
    void aFolderHoldingTheUsersOwnFilesKeepsThemAndGetsTheNewSet() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out"));
        Files.writeString(out.resolve("notes.txt"), "mine");
        AtomicFiles.writeFolder(out, "summary.json", f -> Files.writeString(f.resolve("summary.json"), "new"));
        assertThat(Files.readString(out.resolve("notes.txt"))).isEqualTo("mine");
        assertThat(Files.readString(out.resolve("summary.json"))).isEqualTo("new");
    }
}
