package dev.aorta.analyzer.read;

import com.fasterxml.jackson.core.JsonParser;

import java.io.IOException;
import java.util.Arrays;

/**
 * The text of a JSON string value as one shared String per distinct text, looked up in the parser's own buffer: a
 * trace repeats a few thousand names, categories and phases millions of times, and a new String for each (a kernel
 * name runs to hundreds of characters) was a fifth of the time spent reading. Past {@link #MAX_ENTRIES} distinct
 * texts (ids, not names), new ones are returned as plain Strings.
 */
final class CanonicalStrings {
    private static final int MAX_ENTRIES = 1 << 16;
    private String[] table = new String[1024];
    private int size;

    /** The current string value's text; the parser must be on a string value. */
    String text(JsonParser p) throws IOException {
        char[] chars = p.getTextCharacters();
        int offset = p.getTextOffset();
        int length = p.getTextLength();
        int hash = 0;
        for (int i = offset; i < offset + length; i++) {
            hash = 31 * hash + chars[i];
        }
        int mask = table.length - 1;
        int slot = spread(hash) & mask;
        for (String s = table[slot]; s != null; s = table[slot = (slot + 1) & mask]) {
            if (s.hashCode() == hash && equals(s, chars, offset, length)) {
                return s;
            }
        }
        String s = new String(chars, offset, length);
        if (size < MAX_ENTRIES) {
            table[slot] = s;
            if (2 * ++size > table.length) {
                rehash();
            }
        }
        return s;
    }

    private static boolean equals(String s, char[] chars, int offset, int length) {
        if (s.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (s.charAt(i) != chars[offset + i]) {
                return false;
            }
        }
        return true;
    }

    /** String.hashCode's low bits vary little between similar names: spread the high ones down. */
    private static int spread(int hash) {
        return hash ^ (hash >>> 16);
    }

    private void rehash() {
        String[] old = table;
        table = new String[old.length * 2];
        int mask = table.length - 1;
        for (String s : old) {
            if (s != null) {
                int slot = spread(s.hashCode()) & mask;
                while (table[slot] != null) {
                    slot = (slot + 1) & mask;
                }
                table[slot] = s;
            }
        }
        Arrays.fill(old, null);
    }
}
