package dev.aorta.agent.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** A collective (all-reduce, ...) intercepted on the host. */
@Name("aorta.Collective")
@Label("Collective")
@Category("aorta")
@Description("A collective (all-reduce, ...) intercepted on the host.")
@StackTrace(false)
public final class CollectiveEvent extends jdk.jfr.Event {
    @Label("API")
    public String api;
    @Label("Stream") @Description("the stream it ran on (the comm stream when bind-collectives moved it)")
    public long stream;
    @Label("Application Stream")
    public long applicationStream;
    @Label("Op")
    public String op;
    @Label("Data Type")
    public String dtype;
    @Label("Count")
    public long count;
    @Label("Communicator")
    public long communicator;
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
}
