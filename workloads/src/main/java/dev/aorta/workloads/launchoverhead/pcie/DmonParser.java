package dev.aorta.workloads.launchoverhead.pcie;

import java.util.Arrays;
import java.util.List;

/**
 * Reads {@code nvidia-smi dmon -s t} output by column names, never by position: a header line
 * {@code # gpu rxpci txpci ...} names the columns, a units line ({@code # Idx MB/s MB/s}) follows, then data
 * lines; a value of {@code -} means not available.
 */
final class DmonParser {
    record Sample(double rxMBps, double txMBps) {
    }

    private int rxColumn = -1;
    private int txColumn = -1;
    private String lastProblem;

    /** The sample a data line holds, or null for headers and lines without both values. */
    Sample accept(String line) {
        String trimmed = line.trim();
        if (trimmed.isEmpty()) {
            return null;
        }
        if (trimmed.startsWith("#")) {
            List<String> names = Arrays.asList(trimmed.substring(1).trim().split("\\s+"));
            if (names.contains("rxpci") || names.contains("txpci")) {
                rxColumn = names.indexOf("rxpci");
                txColumn = names.indexOf("txpci");
                if (rxColumn < 0 || txColumn < 0) {
                    lastProblem = "nvidia-smi dmon prints no rxpci and txpci columns: " + trimmed;
                }
            }
            return null;
        }
        if (rxColumn < 0 || txColumn < 0) {
            lastProblem = "nvidia-smi dmon: " + trimmed;
            return null;
        }
        String[] fields = trimmed.split("\\s+");
        if (fields.length <= Math.max(rxColumn, txColumn)) {
            return null;
        }
        try {
            return new Sample(Double.parseDouble(fields[rxColumn]), Double.parseDouble(fields[txColumn]));
        } catch (NumberFormatException e) {
            lastProblem = "nvidia-smi dmon gives no PCIe values (" + fields[rxColumn] + ", " + fields[txColumn] + ")";
            return null;
        }
    }

    String lastProblem() {
        return lastProblem;
    }
}
