package dev.aorta.workloads.launchoverhead;

import java.util.ArrayList;
import java.util.List;

/**
 * Every rank's results, gathered through the communicator: each rank sends one small fp32 table (its device,
 * whether its all-reduce sums were wrong, and the numbers of each pattern), and rebuilds the others' results
 * from theirs. The ranks ran the same patterns in the same order, so the tables line up.
 */
record GatheredRanks(List<LaunchOverheadResult.RankResult> ranks, List<Integer> ranksWithWrongSums) {
    private static final int DEVICE = 0;
    private static final int WRONG_SUMS = 1;
    private static final int PATTERNS = 2;

    static GatheredRanks gather(StageAllReduce comm, LaunchOverheadResult.RankResult mine, boolean wrongSums) {
        List<PatternResult> patterns = mine.patterns();
        float[] table = new float[PATTERNS + patterns.size() * PatternResult.GATHERED_FIELDS];
        table[DEVICE] = mine.device();
        table[WRONG_SUMS] = wrongSums ? 1 : 0;
        for (int i = 0; i < patterns.size(); i++) {
            patterns.get(i).toGathered(table, PATTERNS + i * PatternResult.GATHERED_FIELDS);
        }
        float[][] all = comm.gather(table);
        List<LaunchOverheadResult.RankResult> ranks = new ArrayList<>();
        List<Integer> wrong = new ArrayList<>();
        for (int r = 0; r < all.length; r++) {
            if (all[r][WRONG_SUMS] != 0) {
                wrong.add(r);
            }
            if (r == mine.rank()) {
                ranks.add(mine);
                continue;
            }
            List<PatternResult> theirs = new ArrayList<>();
            for (int i = 0; i < patterns.size(); i++) {
                theirs.add(patterns.get(i).fromGathered(all[r], PATTERNS + i * PatternResult.GATHERED_FIELDS, r));
            }
            ranks.add(new LaunchOverheadResult.RankResult(r, Math.round(all[r][DEVICE]), theirs));
        }
        return new GatheredRanks(List.copyOf(ranks), List.copyOf(wrong));
    }

    /** This rank's own finding when it has one (the details), else which other ranks found wrong sums; null when none. */
    String allReduceProblem(String mine) {
        if (mine != null) {
            return mine;
        }
        return ranksWithWrongSums.isEmpty() ? null
                : "rank(s) " + ranksWithWrongSums + ": the all-reduce sums differ from the expected ones (details printed there)";
    }
}
