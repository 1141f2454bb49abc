package dev.aorta.agent.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A collective (all-reduce, ...) intercepted on the host. */
@Name("aorta.Collective")
@Label("Collective")
@Category("aorta")
@Description("A collective (all-reduce, ...) intercepted on the host.")
@StackTrace(false)
public final class CollectiveEvent extends HostCallEvent {
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
}
