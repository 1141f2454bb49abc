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
     *
     * @throws NumberFormatException when the value is not a number ("abc", "NaN", an object) or its nanoseconds do
     *                               not fit a long; the message says which, for the reader's skip count
     */
    static long microsToNanos(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT) {
            if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                throw new NumberFormatException(OUT_OF_RANGE);
            }
            return scaled(p.getLongValue(), 1000);
        }
        if (t == JsonToken.VALUE_STRING || t == JsonToken.VALUE_NUMBER_FLOAT) {
            return microsToNanos(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
        }
        if (t != null && t.isStructStart()) {
            p.skipChildren();
        }
        throw new NumberFormatException(NOT_A_NUMBER);
    }

    /** Why a time was rejected: the reasons readers count skipped records by. */
    static final String NOT_A_NUMBER = "not a number";
    static final String OUT_OF_RANGE = "too large for nanoseconds in 64 bits";

    static long microsToNanos(char[] c, int off, int len) {
        int i = off;
        int end = off + len;
        boolean negative = i < end && c[i] == '-';
        if (negative) {
            i++;
        }
        int digitsStart = i;
        long whole = 0;
        while (i < end && c[i] >= '0' && c[i] <= '9') {
            whole = scaled(whole, 10) + (c[i++] - '0');
            if (whole < 0) {
                throw new NumberFormatException(OUT_OF_RANGE);
            }
        }
        int wholeDigits = i - digitsStart;
        long nanos = scaled(whole, 1000);
        int fractionDigits = 0;
        if (i < end && c[i] == '.') {
            i++;
            while (i < end && c[i] >= '0' && c[i] <= '9') {
                if (fractionDigits < 3) {
                    nanos += (c[i] - '0') * NANOS_PER_FRACTION_DIGIT[fractionDigits];
                } else if (fractionDigits == 3 && c[i] >= '5') {
                    nanos += 1; // round half up at the first digit below a nanosecond
                }
                fractionDigits++;
                i++;
            }
        }
        if (wholeDigits + fractionDigits == 0) {
            throw new NumberFormatException(NOT_A_NUMBER);  // "", "NaN", "abc", "-"
        }
        if (i < end && (c[i] == 'e' || c[i] == 'E')) {
            double v;
            try {
                v = Double.parseDouble(new String(c, off, len)) * 1000;
            } catch (NumberFormatException e) {
                throw new NumberFormatException(NOT_A_NUMBER);
            }
            if (!Double.isFinite(v) || Math.abs(v) >= Long.MAX_VALUE) {
                throw new NumberFormatException(OUT_OF_RANGE);
            }
            return Math.round(v);
        }
        if (i < end) {
            throw new NumberFormatException(NOT_A_NUMBER);  // "12abc"
        }
        if (nanos < 0) {
            throw new NumberFormatException(OUT_OF_RANGE);
        }
        return negative ? -nanos : nanos;
    }

    private static long scaled(long v, long factor) {
        try {
            return Math.multiplyExact(v, factor);
        } catch (ArithmeticException e) {
            throw new NumberFormatException(OUT_OF_RANGE);
        }
    }

    /**
     * A stream or id written as a number, a decimal string or a hex string ("0x7f..."); {@code dflt} if absent.
     *
     * @throws NumberFormatException for a number beyond 64 bits, once its token is read
     */
    static long idValue(JsonParser p, long dflt) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT) {
            if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                throw new NumberFormatException("beyond 64 bits");
            }
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
