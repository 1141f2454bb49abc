package dev.aorta.agent.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** A copy or memset intercepted on the host. */
@Name("aorta.MemoryOperation")
@Label("Memory Operation")
@Category("aorta")
@Description("A copy or memset intercepted on the host.")
@StackTrace(false)
public final class MemoryOperationEvent extends jdk.jfr.Event {
    @Label("API")
    public String api;
    @Label("Stream")
    public long stream;
    @Label("Bytes") @jdk.jfr.DataAmount
    public long bytes;
    @Label("Copy Kind")
    public String copyKind;
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
