package dev.aorta.agent.recorder;

import dev.aorta.agent.advice.CallId;
import dev.aorta.agent.advice.LaunchAdvice;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import example.fakegpu.LaunchShapedTarget;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import org.junit.jupiter.api.Test;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static org.assertj.core.api.Assertions.assertThat;

/** Once warm, an intercepted call allocates nothing on the application's thread (recorded or dropped). */
class HotPathAllocationTest {

    @Test
    void anInterceptedLaunchAllocatesNothingOnTheCallingThread() throws Throwable {
        int id = CallTable.register(Interception.of(LaunchShapedTarget.class.getName(), "cuLaunchKernel", 11,
                CallKind.LAUNCH, LaunchAdvice.class));
        Class<?> woven = new ByteBuddy().redefine(LaunchShapedTarget.class).name("example.fakegpu.AllocationTarget")
                .visit(Advice.withCustomMapping().bind(CallId.class, id).to(LaunchAdvice.class).on(named("cuLaunchKernel")))
                .make().load(getClass().getClassLoader(), ClassLoadingStrategy.Default.WRAPPER).getLoaded();
        MethodHandle launch = MethodHandles.publicLookup().findStatic(woven, "cuLaunchKernel",
                MethodType.methodType(int.class, Object.class, int.class, int.class, int.class, int.class, int.class,
                        int.class, int.class, Object.class, Object.class, Object.class));
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        CallBuffer.RowConsumer discard = (b, seq, rows, o) -> { };

        long allocated = 0;
        long calls = 0;
        for (int batch = 0; batch < 400; batch++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 4000; i++) {
                int r = (int) launch.invokeExact((Object) null, 1, 1, 1, 32, 1, 1, 0, (Object) null, (Object) null, (Object) null);
                if (r != 42) {
                    throw new AssertionError("the call's own result changed: " + r);
                }
            }
            long after = threads.getCurrentThreadAllocatedBytes();
            if (batch >= 200) { // warm: compiled
                allocated += after - before;
                calls += 4000;
            }
            for (CallBuffer b : Recorder.buffers()) {
                b.drain(discard);
            }
        }
        assertThat((double) allocated / calls).as("bytes per call").isLessThan(0.01);
    }
}
