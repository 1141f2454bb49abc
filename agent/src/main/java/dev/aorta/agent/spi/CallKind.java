package dev.aorta.agent.spi;

import dev.aorta.agent.config.AgentOptions.Category;

/**
 * What an intercepted call means. The meaning decides how the recorded arguments a0..a7 are read
 * (see {@link dev.aorta.agent.pipeline.CallDecoder}) and which {@code record=} category switches it on.
 */
public enum CallKind {
    /** Kernel launch: a0..a2 grid, a3..a5 block, a6 shared memory bytes, a7 function handle. */
    LAUNCH(Category.LAUNCH),
    /** Graph launch: a0 executable graph handle. */
    GRAPH_LAUNCH(Category.LAUNCH),
    /** Copy: a0 element count (times the interception's unit = bytes), a1 runtime copy kind or -1, a2 dst, a3 src. */
    COPY(Category.COPY),
    /** Memset: a0 element count (times unit = bytes), a2 dst. */
    MEMSET(Category.MEMSET),
    /** Stream created: stream = the new stream, a0 flags, a1 priority. */
    STREAM_CREATE(Category.STREAM),
    STREAM_DESTROY(Category.STREAM),
    /**
     * A context is destroyed (cuCtxDestroy): a0 the context. Woven whatever {@code record=} says and between windows
     * too, as the agent's own resources in that context (sampled event pairs) must go before it does.
     */
    CONTEXT_DESTROY(Category.STREAM),
    /** A library handle bound to a stream (cublasSetStream): a0 handle. */
    SET_STREAM(Category.STREAM),
    /** Stream or context synchronize: stream, or 0 for the whole context/device. */
    SYNC(Category.SYNC),
    /** Event synchronize: a0 event. */
    EVENT_SYNC(Category.SYNC),
    /** Event record: a0 event, recorded on stream. */
    EVENT_RECORD(Category.EVENT),
    /** Event query: a0 event. */
    EVENT_QUERY(Category.EVENT),
    /** Stream waits for an event: stream waits, a0 event, a1 flags. */
    STREAM_WAIT(Category.EVENT),
    /** Collective: a0 count, a1 dtype, a2 op, a3 communicator, a4 send, a5 recv, a6 the application's stream. */
    COLLECTIVE(Category.COLLECTIVE),
    /** Allocation: a0 bytes, a1 address. */
    ALLOC(Category.MEMORY),
    /** Free: a0 address. */
    FREE(Category.MEMORY),
    /** BLAS GEMM: a0 library handle (its stream comes from SET_STREAM unless the call names one), a1 m, a2 n, a3 k. */
    GEMM(Category.BLAS),
    /** Iteration markers (always recorded): instants, a0 the step number for ITERATION_STEP. */
    ITERATION_BEGIN(null),
    ITERATION_END(null),
    ITERATION_STEP(null),
    ITERATION_FINISH(null),
    /** A call of the {@code iteration-method}: its span is one iteration. */
    ITERATION_CALL(null);

    private final Category category;

    CallKind(Category category) {
        this.category = category;
    }

    /** The {@code record=} category, or null for markers (always on). */
    public Category category() {
        return category;
    }

    public boolean isIterationMarker() {
        return category == null;
    }

    /** Woven always: iteration markers drive the capture schedule, a context's destruction frees the agent's state. */
    public boolean alwaysWoven() {
        return isIterationMarker() || this == CONTEXT_DESTROY;
    }
}
