package dev.aorta.analyzer.read;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * An input stream filled by a thread of its own: gzip inflation runs beside the parsing that reads its output, on a
 * second core (a compressed trace otherwise spends about a quarter of its reading time inflating). The reader sees
 * the same bytes, and an exception of the underlying stream (a truncated or corrupt gzip) at the same place: after
 * every byte that came before it.
 */
final class ReadAhead extends InputStream {
    private static final int CHUNK = 1 << 16;
    /** At most this many chunks wait (1 MiB): the thread runs ahead of the parser, not ahead of the memory. */
    private static final int CHUNKS_AHEAD = 16;
    private static final byte[] END = new byte[0];
    private final BlockingQueue<Object> chunks = new ArrayBlockingQueue<>(CHUNKS_AHEAD);
    private final Thread filler;
    private byte[] current = new byte[0];
    private int pos;
    /** What ended the stream: {@link #END}, or the exception the underlying stream threw. */
    private Object end;

    ReadAhead(InputStream in) {
        filler = new Thread(() -> fill(in), "aorta-read-ahead");
        filler.setDaemon(true);
        filler.start();
    }

    private void fill(InputStream in) {
        try (in) {
            while (true) {
                byte[] chunk = new byte[CHUNK];
                int n = 0;
                try {
                    for (int r; n < CHUNK && (r = in.read(chunk, n, CHUNK - n)) >= 0; ) {
                        n += r;
                    }
                } catch (IOException | RuntimeException e) {
                    if (n > 0) {
                        chunks.put(Arrays.copyOf(chunk, n));  // the bytes before the failure, then the failure
                    }
                    chunks.put(e);
                    return;
                }
                if (n > 0) {
                    chunks.put(n == CHUNK ? chunk : Arrays.copyOf(chunk, n));
                }
                if (n < CHUNK) {
                    chunks.put(END);
                    return;
                }
            }
        } catch (InterruptedException | IOException closedEarly) {
            // closed by the reader before the end (or failing to close): nobody waits for more
        }
    }

    /** Makes {@link #current} hold unread bytes; false at the end. */
    private boolean next() throws IOException {
        while (pos == current.length) {
            if (end == null) {
                try {
                    Object o = chunks.take();
                    if (o instanceof byte[] b && b != END) {
                        current = b;
                        pos = 0;
                        continue;
                    }
                    end = o;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while reading");
                }
            }
            if (end instanceof IOException e) {
                throw e;
            }
            if (end instanceof RuntimeException e) {
                throw e;
            }
            return false;
        }
        return true;
    }

    @Override
    public int read() throws IOException {
        return next() ? current[pos++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (!next()) {
            return -1;
        }
        int n = Math.min(len, current.length - pos);
        System.arraycopy(current, pos, b, off, n);
        pos += n;
        return n;
    }

    @Override
    public void close() {
        filler.interrupt();  // the filler closes the underlying stream as it stops
    }
}
