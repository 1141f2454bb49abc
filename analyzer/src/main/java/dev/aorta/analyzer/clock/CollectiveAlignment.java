package dev.aorta.analyzer.clock;

import dev.aorta.core.metric.ActivityClass;
import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Aligns the clocks of several ranks by matching collectives: the k-th collective of a communicator ends at nearly
 * the same instant on every rank (a collective cannot finish anywhere before every rank has joined it).
 *
 * <p>Communicators are told apart by stream: a rank's communication streams, in order of first use, are matched
 * with the other ranks' in the same order (the j-th communication stream of each rank carries the same
 * communicator, which holds for the usual one-stream-per-process-group setup). For each other rank r, its offset
 * is the median over matched pairs of (end on the reference rank − end on r); the reference is the lowest rank.
 * {@code residual} is the median absolute deviation of those differences: small when the match is right.
 * A rank without collectives matching the reference keeps offset 0 and is reported as not aligned.
 */
public final class CollectiveAlignment {
    /** The shift to add to rank {@code rank}'s times, and how well it is supported. */
    public record Offset(int rank, long offsetNs, long matchedCollectives, long residualNs, boolean aligned) {
    }

    private CollectiveAlignment() {
    }

    public static Map<Integer, Offset> align(List<RankTimeline> ranks) {
        Map<Integer, Offset> out = new TreeMap<>();
        if (ranks.isEmpty()) {
            return out;
        }
        RankTimeline reference = ranks.get(0);
        List<long[]> refEnds = collectiveEndsByStream(reference);
        out.put(reference.rank(), new Offset(reference.rank(), 0, refEnds.stream().mapToLong(a -> a.length).sum(), 0,
                true));
        for (RankTimeline r : ranks.subList(1, ranks.size())) {
            List<long[]> ends = collectiveEndsByStream(r);
            List<Long> diffs = new ArrayList<>();
            for (int j = 0; j < Math.min(refEnds.size(), ends.size()); j++) {
                long[] a = refEnds.get(j);
                long[] b = ends.get(j);
                for (int k = 0; k < Math.min(a.length, b.length); k++) {
                    diffs.add(a[k] - b[k]);
                }
            }
            if (diffs.isEmpty()) {
                out.put(r.rank(), new Offset(r.rank(), 0, 0, 0, false));
                continue;
            }
            long median = median(diffs);
            List<Long> deviations = new ArrayList<>();
            for (long d : diffs) {
                deviations.add(Math.abs(d - median));
            }
            out.put(r.rank(), new Offset(r.rank(), median, diffs.size(), median(deviations), true));
        }
        return out;
    }

    /**
     * A warning per rank whose alignment cannot be trusted: after the shift, the ends of its matched collectives
     * still disagree with the reference's by a median (the residual) longer than the reference's median collective.
     * Ranks of one run end the k-th collective within clock jitter, far less than a collective lasts; a larger
     * residual means the collectives matched are not the same ones (unrelated runs, or ranks that skipped some), and
     * the offset (and every cross-rank number built on it: stragglers, the merged timeline) is wrong.
     */
    public static List<String> implausible(Map<Integer, Offset> offsets, List<RankTimeline> ranks) {
        List<String> out = new ArrayList<>();
        if (ranks.size() < 2) {
            return out;
        }
        RankTimeline reference = ranks.get(0);
        List<Long> durations = new ArrayList<>();
        List<DeviceActivity> acts = reference.activities();
        for (int i = 0; i < acts.size(); i++) {
            if (reference.classOf(i) == ActivityClass.COMMUNICATION) {
                durations.add(acts.get(i).durationNs());
            }
        }
        if (durations.isEmpty()) {
            return out;
        }
        long typical = median(durations);
        for (Offset o : offsets.values()) {
            if (o.aligned() && o.matchedCollectives() > 0 && o.residualNs() > typical) {
                out.add(String.format(java.util.Locale.ROOT, "rank %d: its clock alignment by collectives is"
                        + " implausible: after the offset of %+.3f ms its %d matched collectives still end a median"
                        + " %.3f ms away from rank %d's, longer than rank %d's median collective (%.3f ms); the ranks"
                        + " may not be one run, so cross-rank results (stragglers, the merged timeline) are not"
                        + " trustworthy", o.rank(), o.offsetNs() / 1e6, o.matchedCollectives(), o.residualNs() / 1e6,
                        reference.rank(), reference.rank(), typical / 1e6));
            }
        }
        return out;
    }

    /** End times of the rank's communication activities, one sorted array per communication stream in order of first use. */
    static List<long[]> collectiveEndsByStream(RankTimeline t) {
        List<long[]> out = new ArrayList<>();
        for (int[] indices : collectivesByStream(t)) {
            long[] ends = new long[indices.length];
            for (int k = 0; k < ends.length; k++) {
                ends[k] = t.activities().get(indices[k]).endNs();
            }
            out.add(ends);
        }
        return out;
    }

    /**
     * The indices of the rank's communication activities, one array per communication stream in order of first use,
     * each in order of end: the k-th entry of the j-th array is the collective matched with the k-th of the j-th on
     * every other rank.
     */
    public static List<int[]> collectivesByStream(RankTimeline t) {
        Map<Long, List<Integer>> byStream = new java.util.LinkedHashMap<>();
        List<DeviceActivity> acts = t.activities();
        for (int i = 0; i < acts.size(); i++) {
            if (t.classOf(i) == ActivityClass.COMMUNICATION) {
                byStream.computeIfAbsent(acts.get(i).stream(), s -> new ArrayList<>()).add(i);
            }
        }
        List<int[]> out = new ArrayList<>();
        for (List<Integer> indices : byStream.values()) {
            out.add(indices.stream().sorted((i, j) -> Long.compare(acts.get(i).endNs(), acts.get(j).endNs()))
                    .mapToInt(Integer::intValue).toArray());
        }
        return out;
    }

    private static long median(List<Long> values) {
        long[] a = values.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        return a[a.length / 2];
    }
}
