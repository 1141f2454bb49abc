package dev.aorta.agent.plugins;

import dev.aorta.agent.advice.CallId;
import dev.aorta.agent.spi.Interception;
import dev.aorta.agent.spi.InterceptionPlugin;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JCuda plugins and the JCuda-shaped test doubles against the real JCuda 12.0.0 jars, read as class
 * files (never loaded): every intercepted method exists with that arity, every double's public method
 * has the real descriptor, and the handle field the agent reads is there.
 */
class RealJCudaSignaturesTest {
    static TypePool real;
    static ClassFileLocator locator;

    @BeforeAll
    static void openRealJars() throws Exception {
        Path dir = Path.of(System.getProperty("aorta.real.jcuda", "target/real-jcuda"));
        File jcuda = dir.resolve("jcuda.jar").toFile();
        File jcublas = dir.resolve("jcublas.jar").toFile();
        assertThat(jcuda).as("copied by the build (maven-dependency-plugin, execution real-jcuda)").exists();
        locator = new ClassFileLocator.Compound(ClassFileLocator.ForJarFile.of(jcuda),
                ClassFileLocator.ForJarFile.of(jcublas), ClassFileLocator.ForClassLoader.ofBootLoader());
        real = TypePool.Default.of(locator);
    }

    @Test
    void everyInterceptedJCudaMethodExistsInTheRealJars() {
        for (InterceptionPlugin plugin : List.of(new JCudaDriverPlugin(), new JCudaRuntimePlugin(), new JCublas2Plugin())) {
            for (Interception i : plugin.interceptions()) {
                TypeDescription type = real.describe(i.type()).resolve();
                var found = type.getDeclaredMethods().filter(named(i.method()));
                if (i.arity() >= 0) {
                    found = found.filter(takesArguments(i.arity()));
                }
                assertThat(found).as(i.type() + "#" + i.method() + "/" + i.arity()).isNotEmpty();
            }
            for (String required : plugin.requiredMethods()) {
                String[] r = required.split("/");
                String type = plugin.interceptions().get(0).type();
                assertThat(real.describe(type).resolve().getDeclaredMethods()
                        .filter(named(r[0]).and(takesArguments(Integer.parseInt(r[1]))))).as(required).isNotEmpty();
            }
        }
    }

    @Test
    void everyAdviceWeavesIntoTheRealClasses() {
        for (InterceptionPlugin plugin : List.of(new JCudaDriverPlugin(), new JCudaRuntimePlugin(), new JCublas2Plugin())) {
            TypeDescription type = real.describe(plugin.interceptions().get(0).type()).resolve();
            DynamicType.Builder<?> builder = new ByteBuddy().redefine(type, locator);
            for (Interception i : plugin.interceptions()) {
                var matcher = named(i.method());
                builder = builder.visit(Advice.withCustomMapping().bind(CallId.class, 0).to(i.advice())
                        .on(i.arity() >= 0 ? matcher.and(takesArguments(i.arity())) : matcher));
            }
            // binding errors (an argument of the wrong type or position) surface here
            assertThat(builder.make(real).getBytes()).as(type.getName()).isNotEmpty();
        }
    }

    @Test
    void theTestDoublesHaveTheRealSignatures() {
        for (Class<?> dbl : List.of(jcuda.driver.JCudaDriver.class, jcuda.runtime.JCuda.class,
                jcuda.jcublas.JCublas2.class)) {
            TypeDescription type = real.describe(dbl.getName()).resolve();
            for (Method m : dbl.getDeclaredMethods()) {
                if (!Modifier.isPublic(m.getModifiers())) {
                    continue;
                }
                String descriptor = new MethodDescription.ForLoadedMethod(m).getDescriptor();
                assertThat(type.getDeclaredMethods().filter(named(m.getName())))
                        .as(dbl.getName() + "#" + m.getName())
                        .anySatisfy(r -> assertThat(r.getDescriptor()).isEqualTo(descriptor));
            }
        }
    }

    /** The agent calls the doubles' private natives directly (JCudaNatives, LaunchPathNatives): same descriptors. */
    @Test
    void theDoublesNativesHaveTheRealSignatures() {
        TypeDescription driver = real.describe("jcuda.driver.JCudaDriver").resolve();
        for (Method m : jcuda.driver.JCudaDriver.class.getDeclaredMethods()) {
            if (!m.getName().endsWith("Native")) {
                continue;
            }
            String descriptor = new MethodDescription.ForLoadedMethod(m).getDescriptor();
            assertThat(driver.getDeclaredMethods().filter(named(m.getName())))
                    .as("jcuda.driver.JCudaDriver#" + m.getName())
                    .anySatisfy(r -> assertThat(r.getDescriptor()).isEqualTo(descriptor));
        }
        assertThat(real.describe("jcuda.Pointer").resolve().getDeclaredMethods().filter(named("getByteBuffer")
                .and(takesArguments(long.class, long.class)))).as("jcuda.Pointer#getByteBuffer(long, long)").hasSize(1);
    }

    @Test
    void theNativesTheBinderCallsAndTheHandleFieldExist() {
        TypeDescription driver = real.describe("jcuda.driver.JCudaDriver").resolve();
        for (String n : List.of("cuCtxGetDeviceNative", "cuStreamCreateWithPriorityNative", "cuEventCreateNative",
                "cuEventRecordNative", "cuStreamWaitEventNative", "cuEventDestroyNative")) {
            assertThat(driver.getDeclaredMethods().filter(named(n))).as(n).hasSize(1);
        }
        assertThat(real.describe("jcuda.NativePointerObject").resolve().getDeclaredFields().filter(named("nativePointer")))
                .singleElement().satisfies(f -> assertThat(f.getType().represents(long.class)).isTrue());
        assertThat(real.describe("jcuda.driver.CUstream").resolve().getDeclaredMethods()
                .filter(net.bytebuddy.matcher.ElementMatchers.isConstructor().and(takesArguments(0)))).isNotEmpty();
    }
}
