package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.columns.ApiCallColumns;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.metric.StableOrder;

import java.util.Arrays;

/**
 * A rank's API calls by the correlation id of the device work they launched, built once per timeline. An agent
 * call traced with CUPTI carries CUPTI's id apart ({@code args.cupti_correlation}, the id its CUPTI activity has);
 * that one comes first, as the agent's own id may equal an unrelated CUPTI id. Held as a sorted array of ids and
 * call indices (a lookup is a binary search) rather than a map of boxed ids: a large trace has millions of calls.
 */
public final class CallsByCorrelation {
    private final ApiCallColumns calls;
    private final long[] ids;
    private final int[] callIndex;

    private CallsByCorrelation(ApiCallColumns calls, long[] ids, int[] callIndex) {
        this.calls = calls;
        this.ids = ids;
        this.callIndex = callIndex;
    }

    public static CallsByCorrelation of(ApiCallColumns calls) {
        int n = calls.size();
        // candidate (id, call) pairs in priority order: every CUPTI id first, then every call's own id
        long[] candidateIds = new long[2 * n];
        int[] candidateCalls = new int[2 * n];
        int count = 0;
        for (int i = 0; i < n; i++) {
            if (calls.args(i).get("cupti_correlation") instanceof Number cupti && cupti.longValue() != 0) {
                candidateIds[count] = cupti.longValue();
                candidateCalls[count++] = i;
            }
        }
        for (int i = 0; i < n; i++) {
            long id = calls.correlationId(i);
            if (id != 0) {
                candidateIds[count] = id;
                candidateCalls[count++] = i;
            }
        }
        int[] order = StableOrder.byKey(count, k -> candidateIds[k]);
        long[] ids = new long[count];
        int[] callIndex = new int[count];
        int kept = 0;
        for (int k : order) {
            if (kept > 0 && ids[kept - 1] == candidateIds[k]) {
                continue;  // the first candidate of an id wins, as the priority order says
            }
            ids[kept] = candidateIds[k];
            callIndex[kept++] = candidateCalls[k];
        }
        return new CallsByCorrelation(calls, Arrays.copyOf(ids, kept), Arrays.copyOf(callIndex, kept));
    }

    /** The call that launched the work with this correlation id, or null. */
    public ApiCall get(long correlationId) {
        int at = indexOf(correlationId);
        return at < 0 ? null : calls.get(at);
    }

    /** The rank's call at {@code index} (an index {@link #indexOf} gave). */
    public ApiCall call(int index) {
        return calls.get(index);
    }

    /** The start of the rank's call at {@code index} (an index {@link #indexOf} gave), without building the call. */
    public long startNs(int index) {
        return calls.startNs(index);
    }

    /** The end of the rank's call at {@code index} (an index {@link #indexOf} gave), without building the call. */
    public long endNs(int index) {
        return calls.endNs(index);
    }

    /** The index in the rank's calls of the call that launched the work with this correlation id, or -1. */
    public int indexOf(long correlationId) {
        int at = Arrays.binarySearch(ids, correlationId);
        return at < 0 ? -1 : callIndex[at];
    }

    public boolean isEmpty() {
        return ids.length == 0;
    }
}
