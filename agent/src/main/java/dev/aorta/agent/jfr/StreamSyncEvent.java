package dev.aorta.agent.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** A host wait for the device: stream, context or event synchronize. */
@Name("aorta.StreamSync")
@Label("Stream Synchronize")
@Category("aorta")
@Description("A host wait for the device: stream, context or event synchronize.")
@StackTrace(false)
public final class StreamSyncEvent extends jdk.jfr.Event {
    @Label("API")
    public String api;
    @Label("Stream") @Description("0 for context/device-wide synchronization")
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
}
