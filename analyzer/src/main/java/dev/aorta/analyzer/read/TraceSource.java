package dev.aorta.analyzer.read;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * One input file and what its first bytes say about it. Gzip is undone transparently, so readers see the
 * content; {@link #head()} is the start of that content, which is how formats are detected.
 */
public final class TraceSource {
    private static final int HEAD_BYTES = 64 * 1024;
    private static final byte[] SQLITE_MAGIC = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] JFR_MAGIC = {'F', 'L', 'R', 0};
    /** The UTF-8 byte-order mark as Latin-1 text. */
    private static final String UTF8_BOM = "\u00ef\u00bb\u00bf";

    private final Path path;
    private final boolean gzip;
    private final byte[] head;

    private TraceSource(Path path, boolean gzip, byte[] head) {
        this.path = path;
        this.gzip = gzip;
        this.head = head;
    }

    /** Opens {@code path} and reads its first bytes; fails with a clear message when it cannot be read. */
    public static TraceSource of(Path path) throws IOException {
        if (!Files.isRegularFile(path)) {
            throw new TraceFormatException(path + ": no such file");
        }
        boolean gzip;
        try (InputStream raw = Files.newInputStream(path)) {
            gzip = raw.read() == 0x1f && raw.read() == 0x8b;
        }
        byte[] head;
        try (InputStream in = open(path, gzip)) {
            head = readUpTo(in, HEAD_BYTES);
        } catch (EOFException e) {
            throw new TraceFormatException(path + ": the gzip stream ends inside its header; nothing can be read");
        } catch (ZipException e) {
            // the JDK's "Not in GZIP format" / "Unsupported compression method" name neither the file nor the cause
            throw new TraceFormatException(path + ": the file starts like gzip (bytes 1f 8b) but its gzip header is"
                    + " corrupt; nothing can be read");
        }
        return new TraceSource(path, gzip, head);
    }

    public Path path() {
        return path;
    }

    /** The file name, for messages and the {@code source} field of results. */
    public String name() {
        return path.getFileName().toString();
    }

    public boolean isGzip() {
        return gzip;
    }

    public boolean isEmpty() {
        return head.length == 0;
    }

    public boolean isSqlite() {
        return startsWith(SQLITE_MAGIC);
    }

    public boolean isJfr() {
        return startsWith(JFR_MAGIC);
    }

    /**
     * The first (up to 64 KiB) bytes of the content as text (Latin-1, so every byte maps to a char), without a
     * UTF-8 byte-order mark: editors on Windows add one, and JSON and CSV parsers skip it.
     */
    public String headText() {
        String text = new String(head, StandardCharsets.ISO_8859_1);
        return text.startsWith(UTF8_BOM) ? text.substring(UTF8_BOM.length()) : text;
    }

    /** The first line of the content without a byte-order mark, or "" . */
    public String firstLine() {
        String text = headText();
        int nl = text.indexOf('\n');
        return (nl < 0 ? text : text.substring(0, nl)).strip();
    }

    /**
     * Whether the content ends with a line end, as every line-based trace a tool finished writing does. A plain
     * file is asked directly (its last byte); gzip content cannot be reached without reading it all, and a gzip
     * file cut short fails to decompress anyway, so it counts as ending well.
     */
    public boolean endsWithLineEnd() throws IOException {
        if (gzip) {
            return true;
        }
        try (java.nio.channels.SeekableByteChannel ch = Files.newByteChannel(path)) {
            if (ch.size() == 0) {
                return true;
            }
            java.nio.ByteBuffer last = java.nio.ByteBuffer.allocate(1);
            ch.position(ch.size() - 1).read(last);
            return last.get(0) == '\n' || last.get(0) == '\r';
        }
    }

    /** The content, decompressed when the file is gzip. */
    public InputStream open() throws IOException {
        // inflating is work of its own: on its own thread, beside the reader's parsing
        return gzip ? new ReadAhead(open(path, true)) : open(path, false);
    }

    private static InputStream open(Path path, boolean gzip) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(path), 1 << 16);
        return gzip ? new GZIPInputStream(in, 1 << 16) : in;
    }

    private boolean startsWith(byte[] magic) {
        return head.length >= magic.length && Arrays.equals(head, 0, magic.length, magic, 0, magic.length);
    }

    /** Up to {@code max} bytes; a truncated gzip gives what could be inflated (readers warn about the rest). */
    private static byte[] readUpTo(InputStream in, int max) throws IOException {
        byte[] buf = new byte[max];
        int n = 0;
        try {
            int r;
            while (n < max && (r = in.read(buf, n, max - n)) > 0) {
                n += r;
            }
        } catch (EOFException truncated) {
            // keep what came before the end
        }
        return Arrays.copyOf(buf, n);
    }
}
