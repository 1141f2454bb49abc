package dev.aorta.analyzer.read;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;

import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

import org.apache.commons.csv.CSVRecord;

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
        return CSVParser.parse(new InputStreamReader(source.open(), StandardCharsets.UTF_8), format);
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

    /** A required whole number: a clear error naming the column when it is missing or not a number. */
    long required(CSVRecord r, String name) {
        String v = text(r, name);
        if (v == null || v.isBlank()) {
            throw new NumberFormatException("column " + name + " is empty");
        }
        return Long.parseLong(v.strip());
    }
}
