package dev.aorta.agent.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** One iteration (Aorta.step markers or the iteration-method). */
@Name("aorta.Iteration")
@Label("Iteration")
@Category("aorta")
@Description("One iteration (Aorta.step markers or the iteration-method).")
@StackTrace(false)
public final class IterationEvent extends jdk.jfr.Event {
    @Label("Step")
    public long step;
    @Label("Host Start") @Description("System.nanoTime() when the iteration began")
    public long hostStartNanos;
    @Label("Host Duration") @Timespan(Timespan.NANOSECONDS)
    public long hostDuration;
}
