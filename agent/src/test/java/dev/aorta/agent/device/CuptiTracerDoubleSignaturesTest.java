package dev.aorta.agent.device;

import dev.aorta.agent.RealAortaGpu;
import dev.aorta.gpu.cupti.CuptiTracer;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.hasMethodName;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tests' CUPTI tracer double has the real tracer's signatures, so that the agent's CUPTI source, compiled
 * against the real one, links to the double in the tests (and the tests say something about the real thing).
 */
class CuptiTracerDoubleSignaturesTest {

    @Test
    void everyPublicMemberOfTheDoubleExistsInTheRealTracerWithTheSameDescriptor() {
        for (Class<?> dbl : List.of(CuptiTracer.class, CuptiTracer.ClockPair.class)) {
            TypeDescription real = RealAortaGpu.POOL.describe(dbl.getName()).resolve();
            List<Executable> members = new ArrayList<>(List.of(dbl.getDeclaredConstructors()));
            members.addAll(List.of(dbl.getDeclaredMethods()));
            for (Executable m : members) {
                if (!Modifier.isPublic(m.getModifiers())) {
                    continue;
                }
                MethodDescription d = m instanceof Method method ? new MethodDescription.ForLoadedMethod(method)
                        : new MethodDescription.ForLoadedConstructor((java.lang.reflect.Constructor<?>) m);
                assertThat(real.getDeclaredMethods().filter(hasMethodName(d.getInternalName())))
                        .as(dbl.getName() + "#" + d.getInternalName())
                        .anySatisfy(r -> {
                            assertThat(r.getDescriptor()).isEqualTo(d.getDescriptor());
                            assertThat(r.isStatic()).isEqualTo(d.isStatic());
                        });
            }
        }
    }
}
