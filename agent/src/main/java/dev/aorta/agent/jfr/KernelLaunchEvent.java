package dev.aorta.agent.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** A kernel launch intercepted on the host (committed by the agent's drain thread). */
@Name("aorta.KernelLaunch")
@Label("Kernel Launch")
@Category("aorta")
@Description("A kernel launch intercepted on the host (committed by the agent's drain thread).")
@StackTrace(false)
public final class KernelLaunchEvent extends jdk.jfr.Event {
    @Label("API")
    public String api;
    @Label("Stream")
    public long stream;
    @Label("Grid")
    public String grid;
    @Label("Block")
    public String block;
    @Label("Shared Memory")
    public long sharedMemBytes;
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
