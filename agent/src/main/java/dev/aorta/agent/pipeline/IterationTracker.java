package dev.aorta.agent.pipeline;

import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Marker;

/**
 * Turns marker calls into iteration windows: {@code stepBegin}/{@code stepEnd} pairs, {@code step(n)}
 * (which also ends the previous iteration), {@code finish}, and spans of the {@code iteration-method}.
 */
public final class IterationTracker {
    private final Fanout sink;
    private final int rank;
    private long openStart = -1;
    private long openStep;
    private long nextStep;
    private long completed;

    public IterationTracker(Fanout sink, int rank) {
        this.sink = sink;
        this.rank = rank;
    }

    void marker(CallKind kind, long start, long end, long arg) {
        switch (kind) {
            case ITERATION_BEGIN -> {
                closeAt(start);
                open(start, nextStep);
            }
            case ITERATION_STEP -> {
                closeAt(start);
                open(start, arg);
            }
            case ITERATION_END, ITERATION_FINISH -> closeAt(start);
            case ITERATION_CALL -> emit(nextStep++, start, end);
            default -> throw new IllegalArgumentException(kind + " is not an iteration marker");
        }
    }

    /** Start (host ns) of the iteration currently open, or -1. */
    public long openSince() {
        return openStart;
    }

    /** Iterations completed so far. */
    public long completed() {
        return completed;
    }

    private void open(long start, long step) {
        openStart = start;
        openStep = step;
        nextStep = step + 1;
    }

    private void closeAt(long end) {
        if (openStart >= 0) {
            emit(openStep, openStart, end);
            openStart = -1;
        }
    }

    private void emit(long step, long start, long end) {
        completed++;
        sink.marker(new Marker(Marker.Kind.ITERATION, "iteration", rank, step, start, Math.max(start, end),
                ClockDomain.HOST_MONOTONIC));
    }
}
