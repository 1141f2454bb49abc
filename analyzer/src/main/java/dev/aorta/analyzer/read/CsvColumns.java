package dev.aorta.analyzer.read;

import dev.aorta.analyzer.trace.TraceSink;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Looks CSV columns up by name, ignoring case (rocpd-converted files write {@code Lds_Block_Size} where rocprofv3
 * writes {@code LDS_Block_Size}); never by position, so every header generation reads alike.
 */
final class CsvColumns {
    private final Map<String, Integer> index = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);

    /** A parser of {@code source} whose first row names the columns (UTF-8, spaces around fields ignored). */
    static CSVParser parse(TraceSource source) throws IOException {
        CSVFormat format = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true)
                .setIgnoreSurroundingSpaces(true).get();
        InputStream in = source.open();
        try {
            return CSVParser.parse(new InputStreamReader(in, StandardCharsets.UTF_8), format);
        } catch (IllegalArgumentException e) {
            in.close();  // no parser owns it (a gzip file's is read on a thread of its own, which closing stops)
            // Commons CSV's "A header name is missing in [...]" / "The header contains a duplicate name"
            throw new TraceFormatException(source.path() + ": its first line, the column names, has an empty or"
                    + " repeated name (a file cut inside its header?); nothing can be read");
        }
    }

    /** Takes one row; a RuntimeException says the row is bad. */
    interface RowHandler {
        void row(CSVRecord row);
    }

    /**
     * Hands every row to {@code handler}: a row it rejects is skipped and counted (one warning names the first
     * line of each reason), and a file that stops parsing (a broken quote) ends with a warning, keeping the rows
     * before. A last line without its line end may be where a copy or a killed writer stopped: with fields missing
     * it is skipped, else read, each with a warning, since its last field may have lost characters.
     */
    static void forEachRow(CSVParser csv, TraceSource source, TraceSink sink, RowHandler handler) throws IOException {
        Iterator<CSVRecord> rows = csv.iterator();
        SkippedRecords skipped = new SkippedRecords(source.path().toString());
        boolean cut = !source.endsWithLineEnd();
        long line = 1;
        CSVRecord held = null;  // a row is handled once the next one is known: the last one may be cut
        long heldLine = 0;
        while (true) {
            CSVRecord r;
            try {
                if (!rows.hasNext()) {
                    break;
                }
                r = rows.next();
            } catch (UncheckedIOException | IllegalStateException e) {
                sink.warning(source.path() + ": " + stopped(e, line + 1) + "; kept the rows before it");
                break;
            }
            line = csv.getCurrentLineNumber();
            if (held != null) {
                handle(held, heldLine, handler, skipped);
            }
            held = r;
            heldLine = line;
        }
        if (held != null && cut && held.size() < csv.getHeaderNames().size()) {
            sink.warning(source.path() + ": the file is truncated: its last line (line " + heldLine + ") has no line"
                    + " end and only " + held.size() + " of " + csv.getHeaderNames().size() + " fields; skipped that"
                    + " row and kept the ones before");
        } else if (held != null) {
            if (cut) {
                // hand-written samples end so too; a file cut inside its last field cannot be told from them
                sink.warning(source.path() + ": its last line (line " + heldLine + ") has no line end; read it as"
                        + " complete, though if the file was cut there its last field may have lost characters");
            }
            handle(held, heldLine, handler, skipped);
        }
        if (skipped.warning() != null) {
            sink.warning(skipped.warning());
        }
    }

    /** Why parsing stopped, in words: Commons CSV's own message names its exception class and parser state. */
    private static String stopped(RuntimeException e, long line) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        String why = cause.getMessage() == null ? cause.getClass().getSimpleName()
                : cause.getMessage().replaceFirst("^\\(startline \\d+\\) ", "");
        if (why.startsWith("EOF reached before encapsulated token finished")) {
            return "the file is truncated: it ends inside a quoted field that starts at line " + line;
        }
        return "the file is malformed at line " + line + " (" + why.lines().findFirst().orElse(why) + ")";
    }

    private static void handle(CSVRecord r, long line, RowHandler handler, SkippedRecords skipped) {
        try {
            handler.row(r);
        } catch (RuntimeException e) {
            skipped.skip("rows that cannot be read (" + (e.getMessage() == null ? e.getClass().getSimpleName()
                    : e.getMessage()) + ")", "line " + line);
        }
    }

    CsvColumns(Map<String, Integer> headerMap) {
        headerMap.forEach((name, i) -> index.put(name.strip(), i));
    }

    boolean has(String name) {
        return index.containsKey(name);
    }

    /** The first of {@code names} present, or null. */
    String firstPresent(String... names) {
        for (String n : names) {
            if (has(n)) {
                return n;
            }
        }
        return null;
    }

    String text(CSVRecord r, String name) {
        Integer i = index.get(name);
        return i == null || i >= r.size() ? null : r.get(i);
    }

    /** A whole number; agent ids written as "Agent 2" or "GPU 2" give their digits. {@code dflt} when absent. */
    long number(CSVRecord r, String name, long dflt) {
        String v = text(r, name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        v = v.strip();
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            String digits = v.replaceAll("[^0-9]", "");
            if (v.toLowerCase(Locale.ROOT).startsWith("0x")) {
                return Long.parseUnsignedLong(v.substring(2), 16);
            }
            if (!digits.isEmpty()) {
                return Long.parseLong(digits);
            }
            throw new NumberFormatException("column " + name + ": '" + v + "' is not a whole number");
        }
    }

    /**
     * A required timestamp in ns: a whole number, or a decimal (some converters write "1234.0") rounded to the
     * nearest ns; a clear error naming the column when it is missing, not a number or beyond 64 bits.
     */
    long required(CSVRecord r, String name) {
        String v = text(r, name);
        if (v == null || v.isBlank()) {
            throw new NumberFormatException("column " + name + " is empty");
        }
        try {
            return new BigDecimal(v.strip()).setScale(0, RoundingMode.HALF_UP).longValueExact();
        } catch (NumberFormatException e) {
            throw new NumberFormatException("column " + name + " is not a number");
        } catch (ArithmeticException e) {
            throw new NumberFormatException("column " + name + " does not fit 64 bits");
        }
    }
}
