package dev.aorta.agent.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** Any other intercepted call: stream create/destroy, event record/wait/query, alloc/free, GEMM. */
@Name("aorta.GpuCall")
@Label("GPU API Call")
@Category("aorta")
@Description("Any other intercepted call: stream create/destroy, event record/wait/query, alloc/free, GEMM.")
@StackTrace(false)
public final class GpuCallEvent extends HostCallEvent {
    @Label("Kind")
    public String kind;
}
