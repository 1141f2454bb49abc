package dev.aorta.plugins.javacpp;

import dev.aorta.agent.advice.CallId;
import dev.aorta.agent.spi.Interception;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.scaffold.inline.MethodNameTransformer;
import net.bytebuddy.implementation.SuperMethodCall;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static net.bytebuddy.matcher.ElementMatchers.isNative;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plugin against the real JavaCPP CUDA presets (read as class files, never loaded): every intercepted
 * method exists there, is native, and the advice wraps it (rebased under the native-method prefix).
 */
class RealJavaCppSignaturesTest {

    @Test
    void everyAdviceWrapsTheRealNativeMethods() throws Exception {
        Path dir = Path.of(System.getProperty("aorta.real.javacpp", "target/real-javacpp"));
        ClassFileLocator locator = new ClassFileLocator.Compound(
                ClassFileLocator.ForJarFile.of(dir.resolve("cuda.jar").toFile()),
                ClassFileLocator.ForJarFile.of(dir.resolve("javacpp.jar").toFile()),
                ClassFileLocator.ForClassLoader.ofBootLoader());
        TypePool pool = TypePool.Default.of(locator);
        JavaCppCudaPlugin plugin = new JavaCppCudaPlugin();
        for (String typeName : new String[] {JavaCppCudaPlugin.CUDART, JavaCppCudaPlugin.NCCL}) {
            TypeDescription type = pool.describe(typeName).resolve();
            DynamicType.Builder<?> builder = new ByteBuddy().rebase(type, locator, new MethodNameTransformer.Prefixing("aorta$"));
            for (Interception i : plugin.interceptions()) {
                if (!i.type().equals(typeName)) {
                    continue;
                }
                ElementMatcher.Junction<MethodDescription> m = named(i.method()).and(takesArguments(i.arity()));
                assertThat(type.getDeclaredMethods().filter(m)).as(i.method()).isNotEmpty()
                        .allSatisfy(d -> assertThat(d.isNative()).isTrue());
                builder = builder.method(m.and(isNative())).intercept(Advice.withCustomMapping().bind(CallId.class, 0)
                        .to(i.advice()).wrap(SuperMethodCall.INSTANCE));
            }
            assertThat(builder.make(pool).getBytes()).as(typeName).isNotEmpty();
        }
    }

    /** What the collective binder calls through JavaCPP's cudart when there is no JCuda ({@link JavaCppStreamOps}). */
    @Test
    void theStreamOperationsOfTheBinderExistInTheRealCudart() throws Exception {
        Path dir = Path.of(System.getProperty("aorta.real.javacpp", "target/real-javacpp"));
        TypePool pool = TypePool.Default.of(new ClassFileLocator.Compound(
                ClassFileLocator.ForJarFile.of(dir.resolve("cuda.jar").toFile()),
                ClassFileLocator.ForJarFile.of(dir.resolve("javacpp.jar").toFile()),
                ClassFileLocator.ForClassLoader.ofBootLoader()));
        TypeDescription cudart = pool.describe(JavaCppCudaPlugin.CUDART).resolve();
        String stream = "org.bytedeco.cuda.cudart.CUstream_st";
        String event = "org.bytedeco.cuda.cudart.CUevent_st";
        String[][] needed = {
            {"cudaGetDevice", "int[]"},
            {"cudaStreamCreateWithPriority", stream, "int", "int"},
            {"cudaEventCreateWithFlags", event, "int"},
            {"cudaEventRecord", event, stream},
            {"cudaStreamWaitEvent", stream, event, "int"},
            {"cudaEventDestroy", event},
        };
        for (String[] m : needed) {
            assertThat(cudart.getDeclaredMethods().filter(named(m[0]).and(takesArguments(m.length - 1))
                    .and(d -> d.isStatic() && d.getReturnType().represents(int.class)
                            && java.util.stream.IntStream.range(1, m.length).allMatch(
                                    k -> d.getParameters().get(k - 1).getType().asErasure().getActualName().equals(m[k])))))
                    .as(String.join(" ", m)).isNotEmpty();
        }
    }
}
