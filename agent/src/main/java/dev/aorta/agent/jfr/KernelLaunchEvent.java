package dev.aorta.agent.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A kernel launch intercepted on the host (committed by the agent's drain thread). */
@Name("aorta.KernelLaunch")
@Label("Kernel Launch")
@Category("aorta")
@Description("A kernel launch intercepted on the host (committed by the agent's drain thread).")
@StackTrace(false)
public final class KernelLaunchEvent extends HostCallEvent {
    @Label("Grid")
    public String grid;
    @Label("Block")
    public String block;
    @Label("Shared Memory")
    public long sharedMemBytes;
}
