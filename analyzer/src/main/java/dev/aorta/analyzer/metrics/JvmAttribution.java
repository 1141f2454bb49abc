package dev.aorta.analyzer.metrics;

import dev.aorta.core.metric.IntervalSet;
import dev.aorta.analyzer.trace.JvmPause;
import dev.aorta.analyzer.clock.RankTimeline;

/**
 * JVM attribution: the GPU idle gaps of the window (W − (C ∪ M ∪ Y)) that coincide with a JVM stop recorded by
 * JFR. {@code gapsWithGc} counts idle gaps overlapping at least one GC pause and {@code idleDuringGcNs} the idle
 * time covered by GC pauses; likewise for safepoints (a GC pause is itself inside a safepoint, so the two may
 * overlap). Present only when the rank has JVM pause records.
 */
public record JvmAttribution(long idleGaps, long gcPauses, long gapsWithGc, long idleDuringGcNs, long safepoints,
                             long gapsWithSafepoint, long idleDuringSafepointNs) {

    public static JvmAttribution of(RankTimeline t, ClassIntervals unions, Window w) {
        IntervalSet busy = unions.compute().union(unions.communication()).union(unions.memory())
                .clip(w.startNs(), w.endNs());
        IntervalSet idle = busy.gapsWithin(w.startNs(), w.endNs());
        IntervalSet.SortedBuilder gc = new IntervalSet.SortedBuilder();
        IntervalSet.SortedBuilder sp = new IntervalSet.SortedBuilder();
        long gcCount = 0;
        long spCount = 0;
        for (JvmPause p : t.jvmPauses()) {
            if (p.endNs() <= w.startNs() || p.startNs() >= w.endNs()) {
                continue;
            }
            if (p.kind() == JvmPause.Kind.GC) {
                gc.add(p.startNs(), p.endNs());
                gcCount++;
            } else {
                sp.add(p.startNs(), p.endNs());
                spCount++;
            }
        }
        IntervalSet gcSet = gc.build();
        IntervalSet spSet = sp.build();
        return new JvmAttribution(idle.size(), gcCount, gapsTouching(idle, gcSet), idle.intersect(gcSet).length(),
                spCount, gapsTouching(idle, spSet), idle.intersect(spSet).length());
    }

    private static long gapsTouching(IntervalSet gaps, IntervalSet pauses) {
        long n = 0;
        for (int i = 0; i < gaps.size(); i++) {
            if (pauses.lengthWithin(gaps.start(i), gaps.end(i)) > 0) {
                n++;
            }
        }
        return n;
    }
}
