package dev.aorta.analyzer.read;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Replaces each byte that is not part of valid UTF-8 by '?', so that one kernel name with a damaged byte costs that
 * byte, not the rest of the file: Jackson's byte parser stops at invalid UTF-8 and cannot resume. One byte for one
 * keeps every byte offset a warning names exact. Bytes are checked in a buffer of their own; a sequence cut by the
 * buffer's end is completed by the next fill before it is checked.
 */
final class Utf8Repair extends InputStream {
    /** Eight bytes read as one long, to find the next non-ASCII byte eight at a time. */
    private static final VarHandle EIGHT = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long SIGN_BITS = 0x8080808080808080L;
    private final InputStream in;
    private final byte[] buf = new byte[1 << 16];
    /** buf[pos, checked) is checked and not yet read; buf[checked, lim) waits for the rest of its sequence. */
    private int pos;
    private int checked;
    private int lim;
    private boolean eof;
    private long replaced;

    Utf8Repair(InputStream in) {
        this.in = in;
    }

    /** How many bytes were replaced so far. */
    long replaced() {
        return replaced;
    }

    /** The warning for a file that had invalid UTF-8, or null. */
    String warning(TraceSource source) {
        return replaced == 0 ? null : source.path() + ": " + replaced + (replaced == 1 ? " byte" : " bytes")
                + " of invalid UTF-8 (in names or text) read as '?'; the events holding them were kept";
    }

    @Override
    public int read() throws IOException {
        if (pos == checked && !fill()) {
            return -1;
        }
        return buf[pos++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (pos == checked && !fill()) {
            return -1;
        }
        int n = Math.min(len, checked - pos);
        System.arraycopy(buf, pos, b, off, n);
        pos += n;
        return n;
    }

    /** Reads and checks more bytes; false at the end of the content. */
    private boolean fill() throws IOException {
        while (pos == checked) {
            System.arraycopy(buf, checked, buf, 0, lim - checked);  // the unfinished sequence, at most 3 bytes
            lim -= checked;
            pos = 0;
            checked = 0;
            if (eof) {
                if (lim == 0) {
                    return false;
                }
            } else {
                int r = in.read(buf, lim, buf.length - lim);
                if (r < 0) {
                    eof = true;
                } else {
                    lim += r;
                }
            }
            check();
        }
        return true;
    }

    private void check() {
        int i = checked;
        while (i < lim) {
            // ASCII (a sign bit of 0) is nearly every byte of a trace: skipped eight bytes to a test, then one by one
            while (i + 8 <= lim && ((long) EIGHT.get(buf, i) & SIGN_BITS) == 0) {
                i += 8;
            }
            while (i < lim && buf[i] >= 0) {
                i++;
            }
            if (i == lim) {
                break;
            }
            int c = buf[i] & 0xff;
            int need = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2
                    : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
            if (need > 0 && i + need >= lim && !eof) {
                break;  // the sequence may continue in the next read
            }
            int k = 1;
            while (k <= need && i + k < lim && (buf[i + k] & 0xc0) == 0x80) {
                k++;
            }
            if (need < 0 || k <= need) {
                buf[i++] = '?';  // a stray or unfinished sequence: its lead byte goes, the rest is checked anew
                replaced++;
            } else {
                i += need + 1;
            }
        }
        checked = i;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
