package dev.aorta.analyzer.clock;

import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;

/**
 * Maps timestamps of one rank's clocks onto a reference clock through its {@link ClockAnchor} pairs, chaining them
 * as needed (cupti → host-monotonic → epoch) and using each in both directions. All clocks are taken to run at
 * the same rate, so a mapping is an offset.
 */
public final class ClockMapper {
    private final Map<ClockDomain, Long> offsetToReference = new EnumMap<>(ClockDomain.class);

    public ClockMapper(ClockDomain reference, Collection<ClockAnchor> anchors) {
        offsetToReference.put(reference, 0L);
        ArrayDeque<ClockDomain> todo = new ArrayDeque<>();
        todo.add(reference);
        while (!todo.isEmpty()) {
            ClockDomain known = todo.poll();
            long knownOffset = offsetToReference.get(known);
            for (ClockAnchor a : anchors) {
                // a maps from → to with t_to = t_from + (toNs − fromNs)
                long fromToTo = a.toNs() - a.fromNs();
                if (a.to() == known && !offsetToReference.containsKey(a.from())) {
                    offsetToReference.put(a.from(), knownOffset + fromToTo);
                    todo.add(a.from());
                } else if (a.from() == known && !offsetToReference.containsKey(a.to())) {
                    offsetToReference.put(a.to(), knownOffset - fromToTo);
                    todo.add(a.to());
                }
            }
        }
    }

    public boolean canMap(ClockDomain domain) {
        return offsetToReference.containsKey(domain);
    }

    /** The offset to add to a time of {@code domain} to get the reference clock; callers check {@link #canMap}. */
    public long offset(ClockDomain domain) {
        return offsetToReference.get(domain);
    }
}
