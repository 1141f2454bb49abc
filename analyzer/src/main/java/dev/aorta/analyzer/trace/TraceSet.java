package dev.aorta.analyzer.trace;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The ranks of one run, read from any number of files, plus the warnings met while reading them. */
public final class TraceSet {
    private final Map<Integer, RankTrace> ranks = new TreeMap<>();
    private final List<String> warnings = new ArrayList<>();

    public RankTrace rank(int rank) {
        return ranks.computeIfAbsent(rank, RankTrace::new);
    }

    /** The ranks in ascending order. */
    public Collection<RankTrace> ranks() {
        return ranks.values();
    }

    public List<String> warnings() {
        return warnings;
    }

    public boolean isEmpty() {
        return ranks.values().stream().allMatch(r -> r.activities().isEmpty() && r.markers().isEmpty()
                && r.apiCalls().isEmpty() && r.jvmPauses().isEmpty());
    }
}
