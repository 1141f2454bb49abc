package dev.aorta.agent.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** Any other intercepted call: stream create/destroy, event record/wait/query, alloc/free, GEMM. */
@Name("aorta.GpuCall")
@Label("GPU API Call")
@Category("aorta")
@Description("Any other intercepted call: stream create/destroy, event record/wait/query, alloc/free, GEMM.")
@StackTrace(false)
public final class GpuCallEvent extends jdk.jfr.Event {
    @Label("API")
    public String api;
    @Label("Kind")
    public String kind;
    @Label("Stream")
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
