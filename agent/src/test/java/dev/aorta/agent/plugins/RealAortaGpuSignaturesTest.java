package dev.aorta.agent.plugins;

import dev.aorta.agent.RealAortaGpu;
import dev.aorta.agent.advice.CallId;
import dev.aorta.agent.spi.Interception;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The aorta-gpu plugin against the real aorta-gpu classes of this build, read as class files: the classes it
 * names exist, the fields it reads exist, and every advice weaves.
 */
class RealAortaGpuSignaturesTest {

    @Test
    void theAdviceWeavesIntoTheRealAortaGpuClasses() {
        AortaGpuPlugin plugin = new AortaGpuPlugin();
        assertThat(RealAortaGpu.POOL.describe(plugin.probeClass()).isResolved()).as(plugin.probeClass()).isTrue();
        Map<String, List<Interception>> byType = new LinkedHashMap<>();
        for (Interception i : plugin.interceptions()) {
            byType.computeIfAbsent(i.type(), t -> new ArrayList<>()).add(i);
        }
        assertThat(byType).containsOnlyKeys(AortaGpuPlugin.LAUNCH, AortaGpuPlugin.CUBLAS, AortaGpuPlugin.NCCL);
        for (Map.Entry<String, List<Interception>> e : byType.entrySet()) {
            TypeDescription type = RealAortaGpu.POOL.describe(e.getKey()).resolve();
            assertThat(plugin.requiredFields(type.getName())).as(type.getName()).isNotEmpty();
            for (String field : plugin.requiredFields(type.getName())) {
                assertThat(type.getDeclaredFields().filter(named(field))).as(type.getName() + "." + field).hasSize(1);
            }
            DynamicType.Builder<?> builder = new ByteBuddy().redefine(type, RealAortaGpu.LOCATOR);
            for (Interception i : e.getValue()) {
                assertThat(type.getDeclaredMethods().filter(named(i.method()).and(takesArguments(i.arity()))))
                        .as(i.type() + "#" + i.method() + "/" + i.arity()).isNotEmpty();
                builder = builder.visit(Advice.withCustomMapping().bind(CallId.class, 0).to(i.advice())
                        .on(named(i.method()).and(takesArguments(i.arity()))));
            }
            // binding errors (a field of the wrong type, an argument of the wrong position) surface here
            assertThat(builder.make(RealAortaGpu.POOL).getBytes()).as(type.getName()).isNotEmpty();
        }
    }
}
