package dev.aorta.agent.plugins;

import dev.aorta.agent.advice.CallId;
import dev.aorta.agent.spi.Interception;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.pool.TypePool;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The aorta-gpu plugin against the real aorta-gpu classes of this build (gpu/target/classes), read as
 * class files: the fields it reads exist and every advice weaves. Runs once the gpu module has its
 * classes (in a full build after the lead's branch is merged); skipped while the module is empty.
 */
class RealAortaGpuSignaturesTest {

    @Test
    void theAdviceWeavesIntoTheRealAortaGpuClasses() throws Exception {
        Path classes = Path.of(System.getProperty("aorta.gpu.classes", "../gpu/target/classes"));
        assumeTrue(Files.exists(classes.resolve("dev/aorta/gpu/cuda/KernelLaunch.class")),
                "aorta-gpu classes not built here (" + classes.toAbsolutePath() + ")");
        File jcuda = Path.of(System.getProperty("aorta.real.jcuda", "target/real-jcuda")).resolve("jcuda.jar").toFile();
        ClassFileLocator locator = new ClassFileLocator.Compound(new ClassFileLocator.ForFolder(classes.toFile()),
                ClassFileLocator.ForJarFile.of(jcuda), ClassFileLocator.ForClassLoader.ofBootLoader());
        TypePool pool = TypePool.Default.of(locator);
        AortaGpuPlugin plugin = new AortaGpuPlugin();
        Map<String, List<Interception>> byType = new LinkedHashMap<>();
        for (Interception i : plugin.interceptions()) {
            byType.computeIfAbsent(i.type(), t -> new java.util.ArrayList<>()).add(i);
        }
        for (Map.Entry<String, List<Interception>> e : byType.entrySet()) {
            TypeDescription type = pool.describe(e.getKey()).resolve();
            for (String field : plugin.requiredFields(type.getName())) {
                assertThat(type.getDeclaredFields().filter(named(field))).as(type.getName() + "." + field).hasSize(1);
            }
            DynamicType.Builder<?> builder = new ByteBuddy().redefine(type, locator);
            for (Interception i : e.getValue()) {
                assertThat(type.getDeclaredMethods().filter(named(i.method()).and(takesArguments(i.arity()))))
                        .as(i.type() + "#" + i.method() + "/" + i.arity()).isNotEmpty();
                builder = builder.visit(Advice.withCustomMapping().bind(CallId.class, 0).to(i.advice())
                        .on(named(i.method()).and(takesArguments(i.arity()))));
            }
            assertThat(builder.make(pool).getBytes()).as(type.getName()).isNotEmpty();
        }
        TypePool.Resolution stream = pool.describe("dev.aorta.gpu.cuda.Stream");
        assertThat(stream.resolve().getDeclaredFields().filter(named("address"))).hasSize(1);
    }
}
