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

    /** End times of the rank's communication activities, one sorted array per communication stream in order of first use. */
    static List<long[]> collectiveEndsByStream(RankTimeline t) {
        Map<Long, List<Long>> byStream = new java.util.LinkedHashMap<>();
        List<DeviceActivity> acts = t.activities();
        for (int i = 0; i < acts.size(); i++) {
            if (t.classOf(i) == ActivityClass.COMMUNICATION) {
                byStream.computeIfAbsent(acts.get(i).stream(), s -> new ArrayList<>()).add(acts.get(i).endNs());
            }
        }
        List<long[]> out = new ArrayList<>();
        for (List<Long> ends : byStream.values()) {
            long[] a = ends.stream().mapToLong(Long::longValue).toArray();
            Arrays.sort(a);
            out.add(a);
        }
        return out;
    }

    private static long median(List<Long> values) {
        long[] a = values.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        return a[a.length / 2];
    }
}
