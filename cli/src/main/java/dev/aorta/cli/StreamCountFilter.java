package dev.aorta.cli;

import dev.aorta.workloads.spi.Workload;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The stream counts of a sweep that a workload is defined for. AORTA drops the others silently; here each
 * dropped count is named in a note, so that a missing row in the table is never a surprise.
 *
 * @param kept    the counts to run, ascending, without duplicates
 * @param skipped the counts left out, ascending
 */
record StreamCountFilter(List<Integer> kept, List<Integer> skipped) {

    static StreamCountFilter of(Workload workload, List<Integer> counts) {
        List<Integer> kept = new ArrayList<>();
        List<Integer> skipped = new ArrayList<>();
        for (int n : new TreeSet<>(counts)) {
            (workload.streamRange().contains(n) ? kept : skipped).add(n);
        }
        return new StreamCountFilter(kept, skipped);
    }

    /** "note: hetero_kernels skips 1 stream (outside its range 2..64)", or null when nothing was skipped. */
    String note(Workload workload) {
        if (skipped.isEmpty()) {
            return null;
        }
        return "note: " + workload.name() + " skips " + skipped.stream().map(String::valueOf)
                .reduce((a, b) -> a + ", " + b).orElseThrow() + (skipped.size() == 1 && skipped.getFirst() == 1
                ? " stream" : " streams") + " (outside its range " + workload.streamRange() + ")";
    }
}
