package dev.aorta.analyzer.trace;

import dev.aorta.analyzer.columns.ApiCallColumns;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.StreamInfo;
import dev.aorta.core.jsonl.EventJsonlReader;

import java.util.Map;

/**
 * Receives what a {@link dev.aorta.analyzer.read.TraceReader} reads: the event records of the core model
 * plus what only traces know (the rank a trace declares, JVM pauses, problems met while reading).
 * Records whose rank the reader does not know carry {@link #UNKNOWN_RANK}; the collector fills it in.
 */
public interface TraceSink extends EventJsonlReader.Sink {
    int UNKNOWN_RANK = -1;

    /** The rank (and world size, or 0 when unknown) the trace declares for itself. */
    default void declaredRank(int rank, int worldSize) {
    }

    default void jvmPause(JvmPause pause) {
    }

    /**
     * An API call of a given rank, or of the file's rank when {@link #UNKNOWN_RANK}: a file holding several ranks
     * (aorta's merged export) says whose each call is, which the call record itself does not carry.
     */
    default void api(int rank, ApiCall c) {
        api(c);
    }

    /**
     * Call {@code i} of a reader's columns, with {@code args} for its arguments unless that is null: as
     * {@link #api(ApiCall)} of that call, which a sink holding columns itself can take without the record.
     */
    default void api(ApiCallColumns calls, int i, Map<String, Object> args) {
        ApiCall c = calls.get(i);
        api(args == null ? c : new ApiCall(c.name(), c.thread(), c.stream(), c.startNs(), c.endNs(), c.correlationId(),
                c.result(), args, c.clock()));
    }

    /** A stream of a given rank, or of the file's rank when {@link #UNKNOWN_RANK} (see {@link #api(int, ApiCall)}). */
    default void stream(int rank, StreamInfo s) {
        stream(s);
    }

    /** A dependency of a given rank, or of the file's when {@link #UNKNOWN_RANK} (see {@link #api(int, ApiCall)}). */
    default void dependency(int rank, Dependency d) {
        dependency(d);
    }

    /** Something read partly or skipped; the message names where (offset, line, record). */
    default void warning(String message) {
    }
}
