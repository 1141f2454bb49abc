package dev.aorta.analyzer.read;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/** Number conversions shared by the JSON readers; exact to the nanosecond, no floating-point rounding. */
final class JsonNumbers {
    private static final long[] NANOS_PER_FRACTION_DIGIT = {100, 10, 1};

    private JsonNumbers() {
    }

    /**
     * Microseconds (an integer, or a decimal with up to nanosecond resolution as newer Kineto writes) as integer
     * nanoseconds. Parsed from the text because a double cannot hold 16 significant digits plus 3 decimals.
     */
    static long microsToNanos(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT) {
            return p.getLongValue() * 1000;
        }
        if (t == JsonToken.VALUE_STRING || t == JsonToken.VALUE_NUMBER_FLOAT) {
            return microsToNanos(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
        }
        throw new IllegalArgumentException("expected a number of microseconds, found " + t);
    }

    static long microsToNanos(char[] c, int off, int len) {
        int i = off;
        int end = off + len;
        boolean negative = i < end && c[i] == '-';
        if (negative) {
            i++;
        }
        long whole = 0;
        while (i < end && c[i] >= '0' && c[i] <= '9') {
            whole = whole * 10 + (c[i++] - '0');
        }
        long nanos = whole * 1000;
        if (i < end && c[i] == '.') {
            i++;
            int digits = 0;
            while (i < end && c[i] >= '0' && c[i] <= '9') {
                if (digits < 3) {
                    nanos += (c[i] - '0') * NANOS_PER_FRACTION_DIGIT[digits];
                } else if (digits == 3 && c[i] >= '5') {
                    nanos += 1; // round half up at the first digit below a nanosecond
                }
                digits++;
                i++;
            }
        }
        if (i < end && (c[i] == 'e' || c[i] == 'E')) {
            double v = Double.parseDouble(new String(c, off, len));
            return Math.round(v * 1000);
        }
        return negative ? -nanos : nanos;
    }

    /** A stream or id written as a number, a decimal string or a hex string ("0x7f..."); {@code dflt} if absent. */
    static long idValue(JsonParser p, long dflt) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT) {
            return p.getLongValue();
        }
        if (t == JsonToken.VALUE_NUMBER_FLOAT) {
            return (long) p.getDoubleValue();
        }
        if (t == JsonToken.VALUE_STRING) {
            return parseId(p.getText(), dflt);
        }
        if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
            p.skipChildren();
        }
        return dflt;
    }

    static long parseId(String s, long dflt) {
        String v = s.strip();
        try {
            if (v.startsWith("0x") || v.startsWith("0X")) {
                return Long.parseUnsignedLong(v.substring(2), 16);
            }
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            return dflt;
        }
    }
}
