package dev.aorta.trainer.log;

import dev.aorta.trainer.config.LoggingConfig.Level;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * A rank's log, {@code <output_dir>/rank<r>.log} as AORTA names it: one line per message at or above
 * {@code logging.level}, as {@code 2026-11-24 21:02:03.123 INFO rank 0: text}. Each line goes to the kernel as one
 * write, newline included, the moment it is logged (no buffer), so the lines logged before a kill are in the file.
 * Opening starts the file afresh, as the metrics file. A log that can no longer be written fails the call, since a
 * run whose log silently stops would mislead.
 */
public final class RankLog implements AutoCloseable {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
            .withZone(ZoneOffset.UTC);

    private final Path file;
    private final int rank;
    private final Level threshold;
    private final FileChannel channel;

    private RankLog(Path file, int rank, Level threshold, FileChannel channel) {
        this.file = file;
        this.rank = rank;
        this.threshold = threshold;
        this.channel = channel;
    }

    public static Path fileFor(Path outputDir, int rank) {
        return outputDir.resolve("rank" + rank + ".log");
    }

    public static RankLog open(Path outputDir, int rank, Level threshold) throws IOException {
        Files.createDirectories(outputDir);
        Path file = fileFor(outputDir, rank);
        return new RankLog(file, rank, threshold, FileChannel.open(file, StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING));
    }

    public Path file() {
        return file;
    }

    public boolean enabled(Level level) {
        return level.ordinal() >= threshold.ordinal();
    }

    public void debug(String message) {
        log(Level.DEBUG, message);
    }

    public void info(String message) {
        log(Level.INFO, message);
    }

    public void warning(String message) {
        log(Level.WARNING, message);
    }

    public void error(String message) {
        log(Level.ERROR, message);
    }

    public synchronized void log(Level level, String message) {
        if (!enabled(level)) {
            return;
        }
        String line = TIME.format(Instant.now()) + " " + level.name() + " rank " + rank + ": "
                + message.replace('\n', ' ') + "\n";
        ByteBuffer bytes = ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8));
        try {
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the rank log " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        channel.close();
    }
}
