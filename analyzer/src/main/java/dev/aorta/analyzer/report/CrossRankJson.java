package dev.aorta.analyzer.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.aorta.analyzer.clock.CollectiveAlignment;
import dev.aorta.analyzer.metrics.KernelBreakdown;
import dev.aorta.analyzer.metrics.Stragglers;
import dev.aorta.analyzer.metrics.TraceAnalysis;
import dev.aorta.core.metric.CollectiveSkew;

import java.io.IOException;
import java.util.Locale;
import java.util.Map;

/**
 * The cross-rank sections of an analysis as JSON fields, the same in {@code summary.json} (per label) and in
 * {@code aorta analyze --format json} (its {@code cross_rank} line):
 * <pre>
 * "clock_offsets": {rank: {offset_ns, matched_collectives, residual_ns, aligned}},
 * "stragglers": [{step, rank, lateness_ns}],
 * "kernels_across_ranks": [{class, name, total_ns, slowest_rank,
 *                           ranks: [{rank, count, total_ns, mean_ns, share_of_class, window_ns: {window: ns}}]}],
 * "collective_skew": [{collective, message_bytes, matched, start_skew_mean_ns, start_skew_p95_ns, start_skew_max_ns,
 *                      end_skew_mean_ns, end_skew_max_ns, last_to_start_rank, times_last_to_start}]
 * </pre>
 */
public final class CrossRankJson {
    private CrossRankJson() {
    }

    /** Writes the four fields into the object {@code g} is in. */
    public static void writeFields(JsonGenerator g, TraceAnalysis a) throws IOException {
        g.writeObjectFieldStart("clock_offsets");
        for (CollectiveAlignment.Offset o : a.offsets().values()) {
            g.writeObjectFieldStart(Integer.toString(o.rank()));
            g.writeNumberField("offset_ns", o.offsetNs());
            g.writeNumberField("matched_collectives", o.matchedCollectives());
            g.writeNumberField("residual_ns", o.residualNs());
            g.writeBooleanField("aligned", o.aligned());
            g.writeEndObject();
        }
        g.writeEndObject();
        g.writeArrayFieldStart("stragglers");
        for (Stragglers st : a.stragglers()) {
            g.writeStartObject();
            g.writeNumberField("step", st.step());
            g.writeNumberField("rank", st.stragglerRank());
            g.writeNumberField("lateness_ns", st.latenessNs());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("kernels_across_ranks");
        for (KernelBreakdown.AcrossRanks k : a.kernelsAcrossRanks()) {
            g.writeStartObject();
            g.writeStringField("class", k.activityClass().name().toLowerCase(Locale.ROOT));
            g.writeStringField("name", k.name());
            g.writeNumberField("total_ns", k.totalNs());
            g.writeNumberField("slowest_rank", k.slowestRank());
            g.writeArrayFieldStart("ranks");
            for (KernelBreakdown.RankEntry e : k.ranks()) {
                g.writeStartObject();
                g.writeNumberField("rank", e.rank());
                g.writeNumberField("count", e.count());
                g.writeNumberField("total_ns", e.totalNs());
                g.writeNumberField("mean_ns", e.meanNs());
                g.writeNumberField("share_of_class", e.shareOfClass());
                g.writeObjectFieldStart("window_ns");
                for (Map.Entry<String, Long> w : e.windowNs().entrySet()) {
                    g.writeNumberField(w.getKey(), w.getValue());
                }
                g.writeEndObject();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("collective_skew");
        for (CollectiveSkew sk : a.collectiveSkew()) {
            g.writeStartObject();
            g.writeStringField("collective", sk.kind().label());
            if (sk.messageBytes() < 0) {
                g.writeNullField("message_bytes");
            } else {
                g.writeNumberField("message_bytes", sk.messageBytes());
            }
            g.writeNumberField("matched", sk.collectives());
            g.writeNumberField("start_skew_mean_ns", sk.startSkewNs().mean());
            g.writeNumberField("start_skew_p95_ns", sk.startSkewNs().p95());
            g.writeNumberField("start_skew_max_ns", sk.startSkewNs().max());
            g.writeNumberField("end_skew_mean_ns", sk.endSkewNs().mean());
            g.writeNumberField("end_skew_max_ns", sk.endSkewNs().max());
            g.writeNumberField("last_to_start_rank", sk.lastToStartRank());
            g.writeNumberField("times_last_to_start", sk.timesLastToStart());
            g.writeEndObject();
        }
        g.writeEndArray();    }
}
