package dev.aorta.workloads.launchoverhead;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** The seed's four patterns. */
public enum Pattern {
    ARGMIN("argmin", 1, "per stage: GEMM distances + norms, argmin per point, gather, residual update"),
    BALANCED("balanced", 1, "per stage: GEMM distances, then a host loop over the centroids issuing 6 small kernels "
            + "and one device->host read each"),
    ALL_REDUCE("all_reduce", 2, "sustained all-reduce of a K and a K x D fp32 buffer, 2 per stage"),
    COMBINED("combined", 2, "balanced + all_reduce per step");

    private final String label;
    private final int minRanks;
    private final String description;

    Pattern(String label, int minRanks, String description) {
        this.label = label;
        this.minRanks = minRanks;
        this.description = description;
    }

    public String label() {
        return label;
    }

    public String description() {
        return description;
    }

    public boolean collective() {
        return minRanks > 1;
    }

    /**
     * Why the pattern cannot run with {@code worldSize} ranks, or empty when it can. The collective patterns need
     * several GPUs, each rank one, and the communicator that a multi-GPU launch opens; on one GPU they are
     * skipped with this reason, as the seed skips them.
     */
    public Optional<String> skipReason(int worldSize) {
        if (worldSize >= minRanks) {
            return Optional.empty();
        }
        return Optional.of("needs " + minRanks + " or more GPUs (ranks) and a communicator; this run has "
                + worldSize + " rank" + (worldSize == 1 ? "" : "s")
                + " (start it under aorta launch --nproc-per-node N, torchrun or srun)");
    }

    /** Parses a comma-separated list ({@code argmin,balanced}); {@code all} means every pattern. */
    public static List<Pattern> parseList(String option, String csv) {
        if (csv.isBlank()) {
            throw new IllegalArgumentException(option + " needs at least one pattern: " + labels());
        }
        if (csv.trim().equals("all")) {
            return List.of(values());
        }
        List<Pattern> result = new ArrayList<>();
        for (String part : csv.split(",")) {
            String name = part.trim();
            Pattern p = Arrays.stream(values()).filter(v -> v.label.equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(option + ": unknown pattern '" + name + "'; known: "
                            + labels() + " or all"));
            if (!result.contains(p)) {
                result.add(p);
            }
        }
        return List.copyOf(result);
    }

    private static String labels() {
        return Arrays.stream(values()).map(Pattern::label).collect(Collectors.joining(", "));
    }
}
