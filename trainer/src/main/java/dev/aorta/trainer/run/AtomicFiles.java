package dev.aorta.trainer.run;

import dev.aorta.model.HostTensor;
import dev.aorta.model.ParameterFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

/** Parameter files written whole or not at all: into a sibling file first, then renamed over the target. */
final class AtomicFiles {
    private AtomicFiles() {
    }

    static void writeParameters(Path file, Map<String, HostTensor> tensors) {
        Path abs = file.toAbsolutePath();
        Path partial = abs.resolveSibling(abs.getFileName() + ".partial");
        try {
            if (abs.getParent() != null) {
                Files.createDirectories(abs.getParent());
            }
            ParameterFile.write(partial, tensors);
            Files.move(partial, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | UncheckedIOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(),
                    e instanceof IOException io ? io : ((UncheckedIOException) e).getCause());
        }
    }
}
