package dev.aorta.agent.pipeline;

import dev.aorta.agent.advice.CallId;
import dev.aorta.agent.advice.LaunchAdvice;
import dev.aorta.agent.config.AgentOptions.Category;
import dev.aorta.agent.recorder.CallTable;
import dev.aorta.agent.recorder.Recorder;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import dev.aorta.agent.spi.InterceptionPlugin;
import dev.aorta.core.event.ApiCall;
import example.fakegpu.LaunchShapedTarget;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Fault injection: failures inside the recorder and the sinks never reach the application. */
class FaultIsolationTest {

    private static Method instrumentedLaunch() throws Exception {
        int id = CallTable.register(Interception.of(LaunchShapedTarget.class.getName(), "cuLaunchKernel", 11, CallKind.LAUNCH,
                LaunchAdvice.class));
        Class<?> woven = new ByteBuddy().redefine(LaunchShapedTarget.class).name("example.fakegpu.WovenTarget")
                .visit(Advice.withCustomMapping().bind(CallId.class, id).to(LaunchAdvice.class).on(named("cuLaunchKernel")))
                .make().load(FaultIsolationTest.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER).getLoaded();
        return woven.getMethod("cuLaunchKernel", Object.class, int.class, int.class, int.class, int.class, int.class,
                int.class, int.class, Object.class, Object.class, Object.class);
    }

    @Test
    void aRecorderFailureInsideTheAdviceIsSuppressed_theCallReturnsItsOwnResult() throws Exception {
        Method launch = instrumentedLaunch();
        // a "stream" that is no JCuda handle makes the recorder's address read throw inside the advice
        Object result = launch.invoke(null, null, 1, 1, 1, 1, 1, 1, 0, "not a CUstream", null, null);
        assertThat(result).isEqualTo(42);
    }

    @Test
    void theApplicationsOwnExceptionStillReachesIt() throws Exception {
        Method launch = instrumentedLaunch();
        assertThatThrownBy(() -> launch.invoke(null, null, -1, 1, 1, 1, 1, 1, 0, null, null, null))
                .isInstanceOf(InvocationTargetException.class)
                .cause().isInstanceOf(IllegalArgumentException.class).hasMessage("the application's own failure");
    }

    @Test
    void aFailingSinkIsSwitchedOffAndTheOthersGoOn() {
        List<ApiCall> received = new ArrayList<>();
        GuardedSink broken = new GuardedSink("broken", new EventSink() {
            @Override
            public void api(ApiCall call, CallKind kind) throws IOException {
                throw new IOException("No space left on device");
            }
        });
        GuardedSink healthy = new GuardedSink("healthy", new EventSink() {
            @Override
            public void api(ApiCall call, CallKind kind) {
                received.add(call);
            }
        });
        Fanout fanout = new Fanout(List.of(broken, healthy));
        Drainer drainer = new Drainer(fanout, EnumSet.allOf(Category.class), 0, 1000);
        int id = CallTable.register(Interception.of("example.Lib", "cuStreamSynchronize", 1, CallKind.SYNC,
                Object.class));

        Recorder.record(id, Recorder.now(), 0x5, 0);
        Recorder.record(id, Recorder.now(), 0x6, 0);
        drainer.cycle();

        assertThat(broken.failed()).isTrue();
        assertThat(healthy.failed()).isFalse();
        // (other tests of this class may have recorded launches on this thread too)
        assertThat(received).filteredOn(c -> c.name().equals("cuStreamSynchronize")).extracting(ApiCall::stream)
                .containsExactly(0x5L, 0x6L);
    }

    @Test
    void pluginsDeclareWhatEachCallMeans() {
        // every built-in plugin's interceptions name a kind and an advice class with a @CallId parameter
        for (InterceptionPlugin p : java.util.ServiceLoader.load(InterceptionPlugin.class)) {
            assertThat(p.interceptions()).isNotEmpty().allSatisfy(i -> {
                assertThat(i.kind()).isNotNull();
                assertThat(java.util.Arrays.stream(i.advice().getDeclaredMethods())
                        .flatMap(m -> java.util.Arrays.stream(m.getParameters()))
                        .anyMatch(par -> par.isAnnotationPresent(CallId.class))).as(i.advice().getName()).isTrue();
            });
        }
    }
}
