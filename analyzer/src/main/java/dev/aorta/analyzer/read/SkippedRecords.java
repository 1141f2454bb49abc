package dev.aorta.analyzer.read;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The records of one file skipped because they are damaged (a timestamp that is not a number or out of range, a
 * negative duration, a device record that is not a complete event), counted by reason so that one warning says
 * what was left out and where the first of each kind was. A damaged record is never read as a plausible value: a
 * timestamp "abc" read as 0 would stretch a window over the whole epoch.
 */
public final class SkippedRecords {
    private final String file;
    private final Map<String, long[]> byReason = new LinkedHashMap<>(); // reason -> {count}
    private final Map<String, String> firstWhere = new LinkedHashMap<>();

    public SkippedRecords(String file) {
        this.file = file;
    }

    /**
     * @param reason what was skipped and why, e.g. "device records with a negative \"dur\""
     * @param where  where the first one was, e.g. "byte 1234" or "line 12"; null when unknown
     */
    public void skip(String reason, String where) {
        byReason.computeIfAbsent(reason, r -> new long[1])[0]++;
        if (where != null) {
            firstWhere.putIfAbsent(reason, where);
        }
    }

    public long total() {
        return byReason.values().stream().mapToLong(c -> c[0]).sum();
    }

    /** One sentence naming the file, each reason with its count and first place; null when nothing was skipped. */
    public String warning() {
        if (byReason.isEmpty()) {
            return null;
        }
        String reasons = byReason.entrySet().stream()
                .map(e -> e.getValue()[0] + " " + e.getKey()
                        + (firstWhere.containsKey(e.getKey()) ? " (first at " + firstWhere.get(e.getKey()) + ")" : ""))
                .collect(Collectors.joining(", "));
        return file + ": skipped " + total() + (total() == 1 ? " damaged record: " : " damaged records: ") + reasons
                + "; the rest of the file was read, and the skipped records count in no result";
    }
}
