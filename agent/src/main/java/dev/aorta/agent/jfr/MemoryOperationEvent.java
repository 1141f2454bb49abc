package dev.aorta.agent.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A copy or memset intercepted on the host. */
@Name("aorta.MemoryOperation")
@Label("Memory Operation")
@Category("aorta")
@Description("A copy or memset intercepted on the host.")
@StackTrace(false)
public final class MemoryOperationEvent extends HostCallEvent {
    @Label("Bytes") @jdk.jfr.DataAmount
    public long bytes;
    @Label("Copy Kind")
    public String copyKind;
}
