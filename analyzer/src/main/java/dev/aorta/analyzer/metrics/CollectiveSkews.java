package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.CollectiveAlignment;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.CollectiveBandwidth;
import dev.aorta.core.metric.CollectiveSkew;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@link CollectiveSkew} of a run's ranks: the same collective matched on every rank as
 * {@link CollectiveAlignment} matches it (the k-th collective, in order of end, of the j-th communication stream), its
 * start and end on clocks shifted by the alignment's offsets. Only ranks whose clock was aligned take part; the
 * collective's kind and size are those the lowest such rank recorded for it.
 */
final class CollectiveSkews {
    private CollectiveSkews() {
    }

    static List<CollectiveSkew> of(List<RankTimeline> ranks, Map<Integer, CollectiveAlignment.Offset> offsets) {
        List<RankTimeline> aligned = ranks.stream()
                .filter(t -> offsets.get(t.rank()) != null && offsets.get(t.rank()).aligned()).toList();
        if (aligned.size() < 2) {
            return List.of();
        }
        List<List<int[]>> byStream = new ArrayList<>();
        for (RankTimeline t : aligned) {
            byStream.add(CollectiveAlignment.collectivesByStream(t));
        }
        RankTimeline reference = aligned.get(0);
        CallsByCorrelation referenceCalls = LaunchLatency.callsByCorrelation(reference);
        CollectiveSkew.Builder skews = new CollectiveSkew.Builder();
        int streams = byStream.stream().mapToInt(List::size).min().orElse(0);
        for (int j = 0; j < streams; j++) {
            final int stream = j;
            int collectives = byStream.stream().mapToInt(s -> s.get(stream).length).min().orElse(0);
            for (int k = 0; k < collectives; k++) {
                int[] rankIds = new int[aligned.size()];
                long[] starts = new long[aligned.size()];
                long[] ends = new long[aligned.size()];
                for (int r = 0; r < aligned.size(); r++) {
                    DeviceActivity a = aligned.get(r).activities().get(byStream.get(r).get(j)[k]);
                    long shift = offsets.get(aligned.get(r).rank()).offsetNs();
                    rankIds[r] = aligned.get(r).rank();
                    starts[r] = a.startNs() + shift;
                    ends[r] = a.endNs() + shift;
                }
                DeviceActivity ref = reference.activities().get(byStream.get(0).get(j)[k]);
                CollectiveBandwidth.Call call = LaunchedOps.collective(reference, ref,
                        ref.correlationId() == 0 ? null : referenceCalls.get(ref.correlationId()));
                skews.add(call.kind(), call.messageBytes(), rankIds, starts, ends);
            }
        }
        return skews.build();
    }
}
