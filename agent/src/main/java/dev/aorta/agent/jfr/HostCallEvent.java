package dev.aorta.agent.jfr;

import dev.aorta.agent.pipeline.CallRecord;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Timespan;

/** The fields every intercepted host call's event carries; each kind of call adds its own. */
abstract class HostCallEvent extends jdk.jfr.Event {
    @Label("API")
    public String api;
    @Label("Stream") @Description("the stream the call went to (0: context-wide or the legacy default stream; "
            + "for a collective moved by bind-collectives, the comm stream)")
    public long stream;
    @Label("Host Start") @Description("System.nanoTime() when the call began (CLOCK_MONOTONIC)")
    public long hostStartNanos;
    @Label("Host Duration") @Timespan(Timespan.NANOSECONDS)
    public long hostDuration;
    @Label("Thread Id")
    public long threadId;
    @Label("Correlation Id")
    public long correlationId;
    @Label("Result") @Description("the library's return code; -1 = the call threw")
    public int result;

    /** Sets the common fields from the decoded call (primitives and its constant name: nothing allocated). */
    final void setCall(CallRecord c) {
        api = c.name();
        stream = c.stream();
        hostStartNanos = c.startNs();
        hostDuration = c.endNs() - c.startNs();
        threadId = c.thread();
        correlationId = c.correlationId();
        result = c.result();
    }
}
