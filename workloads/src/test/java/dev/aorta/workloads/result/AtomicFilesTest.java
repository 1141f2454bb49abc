package dev.aorta.workloads.result;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AtomicFilesTest {
    @TempDir
    Path dir;

    @Test
    void aWriterThatFailsHalfWayLeavesTheOldFileAndNoTemporaryFile() throws Exception {
        Path target = dir.resolve("sub/result.json");
        AtomicFiles.write(target, tmp -> Files.writeString(tmp, "old"));
        assertThatThrownBy(() -> AtomicFiles.write(target, tmp -> {
            Files.writeString(tmp, "half");
            throw new IOException("disk full");
        })).hasMessage("disk full");
        assertThat(Files.readString(target)).isEqualTo("old");
        try (var files = Files.list(target.getParent())) {
            assertThat(files).containsExactly(target);
        }
    }

    @Test
    void aCompleteWriteReplacesTheFile() throws Exception {
        Path target = dir.resolve("r.json");
        AtomicFiles.write(target, tmp -> Files.writeString(tmp, "one"));
        AtomicFiles.write(target, tmp -> Files.writeString(tmp, "two"));
        assertThat(Files.readString(target)).isEqualTo("two");
        assertThat(Files.isReadable(target)).isTrue();
        if (Files.getFileStore(target).supportsFileAttributeView("posix")) {
            assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
                    .isEqualTo("rw-r--r--");
        }
    }
}
