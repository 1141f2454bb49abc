package dev.aorta.agent.device;

import dev.aorta.agent.advice.CallId;
import dev.aorta.agent.advice.ContextDestroyAdvice;
import dev.aorta.agent.advice.LaunchAdvice;
import dev.aorta.agent.recorder.CallBuffer;
import dev.aorta.agent.recorder.CallTable;
import dev.aorta.agent.recorder.Recorder;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import dev.aorta.core.event.DeviceActivity;
import example.fakegpu.FakeGpu;
import example.fakegpu.JCudaContextTarget;
import example.fakegpu.JCudaLaunchTarget;
import jcuda.Handles;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sampled event pairs on the JCuda double's simulated GPU, through the launch advice woven into a
 * cuLaunchKernel-shaped method: the gate makes a sample the kernel's own duration, is opened on every way out of
 * a launch, does not hold up a busy stream; capturing streams are not sampled; slots are recycled; the drain never
 * holds up a launching thread; and a sample allocates nothing.
 */
class EventPairSamplerTest {
    /** The double's kernels run gridX µs. */
    private static final long US = 1_000;
    private static MethodHandle launch;
    private static MethodHandle destroyContext;
    private final List<DeviceActivity> delivered = new CopyOnWriteArrayList<>();
    private EventPairSampler sampler;

    @BeforeAll
    static void weave() throws Exception {
        int id = CallTable.register(Interception.of(JCudaLaunchTarget.class.getName(), "cuLaunchKernel", 11,
                CallKind.LAUNCH, LaunchAdvice.class));
        Class<?> woven = new ByteBuddy().redefine(JCudaLaunchTarget.class).name("example.fakegpu.SampledLaunchTarget")
                .visit(Advice.withCustomMapping().bind(CallId.class, id).to(LaunchAdvice.class).on(named("cuLaunchKernel")))
                .make().load(EventPairSamplerTest.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER).getLoaded();
        int destroyId = CallTable.register(Interception.of(JCudaContextTarget.class.getName(), "cuCtxDestroy", 1,
                CallKind.CONTEXT_DESTROY, ContextDestroyAdvice.class));
        Class<?> destroy = new ByteBuddy().redefine(JCudaContextTarget.class).name("example.fakegpu.WovenContextTarget")
                .visit(Advice.withCustomMapping().bind(CallId.class, destroyId).to(ContextDestroyAdvice.class)
                        .on(named("cuCtxDestroy")))
                .make().load(EventPairSamplerTest.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER).getLoaded();
        destroyContext = MethodHandles.publicLookup().findStatic(destroy, "cuCtxDestroy",
                MethodType.methodType(int.class, CUcontext.class));
        launch = MethodHandles.publicLookup().findStatic(woven, "cuLaunchKernel",
                MethodType.methodType(int.class, CUfunction.class, int.class, int.class, int.class, int.class, int.class,
                        int.class, int.class, CUstream.class, Pointer.class, Pointer.class));
    }

    @AfterEach
    void cleanUp() {
        if (sampler != null) {
            sampler.stop();
        }
        FakeGpu.memoryOperations(true);
        FakeGpu.holdQueries(null);
        FakeGpu.startSimulating();
        FakeGpu.synchronize(0);
        FakeGpu.takeFinished();
        for (CallBuffer b : Recorder.buffers()) {
            b.drain((buffer, seq, rows, o) -> { });
        }
    }

    @Test
    void onAnIdleStreamTheSampleIsTheKernelsOwnDuration() throws Throwable {
        sampler = EventPairSampler.install(1, 0, delivered::add);
        CUstream stream = newStream();

        assertThat(launch(stream, 7)).isZero();

        DeviceActivity kernel = awaitDelivered(1).get(0);
        assertThat(kernel.endNs() - kernel.startNs()).as("ns; the kernel runs 7 µs").isBetween(7 * US - 50, 7 * US + 50);
        assertThat(kernel.stream()).isEqualTo(address(stream));
        assertThat(FakeGpu.closedGates()).isZero();
        assertThat(FakeGpu.log().stream().filter(l -> l.startsWith("wait " + address(stream) + "<-word")))
                .as("the stream waited on its gate").hasSize(1);
    }

    @Test
    void aDestroyedContextsPairsAreLetGo_soANewContextAtItsAddressIsSampledWithPairsOfItsOwn() throws Throwable {
        sampler = EventPairSampler.install(1, 0, delivered::add);
        assertThat(launch(newStream(), 2)).isZero();
        awaitDelivered(1);

        // the double's next context has the same address, and the first one's events die with it
        CUcontext context = new CUcontext();
        JCudaDriver.cuCtxGetCurrent(context);
        assertThat((int) destroyContext.invokeExact(context)).isZero();
        CUstream again = newStream();
        assertThat(launch(again, 3)).isZero();

        DeviceActivity kernel = awaitDelivered(2).get(1);
        assertThat(kernel.stream()).isEqualTo(address(again));
        assertThat(kernel.endNs() - kernel.startNs()).isBetween(3 * US - 50, 3 * US + 50);
        assertThat(FakeGpu.log()).contains("context destroyed");
    }

    @Test
    void aContextDestroyedWithASampleInFlightOpensItsGate() throws Throwable {
        sampler = EventPairSampler.install(1, 0, delivered::add);
        CUstream stream = newStream();
        // a launch that stops between its two halves: its gate is armed when the context goes
        JCudaDriver.cuLaunchKernel(new CUfunction(), 50_000, 1, 1, 1, 1, 1, 0, stream, null, null);
        int sample = EventPairSampler.before(address(stream));
        assertThat(sample).isNotNegative();
        assertThat(FakeGpu.closedGates()).isEqualTo(1);

        CUcontext context = new CUcontext();
        JCudaDriver.cuCtxGetCurrent(context);
        assertThat((int) destroyContext.invokeExact(context)).isZero();

        assertThat(FakeGpu.closedGates()).isZero();
        EventPairSampler.after(sample, address(stream), 0, 1, 1, true);  // the launch comes back: nothing to hand on
        sampler.poll();
        assertThat(delivered).isEmpty();
    }

    @Test
    void aBusyStreamPassesItsGateWithoutStalling() throws Throwable {
        sampler = EventPairSampler.install(1, 0, delivered::add);
        CUstream stream = newStream();
        // 300 ms of work, unsampled: the double sees the gate open when it is next asked anything, which must be
        // before this work ends even on a loaded machine
        JCudaDriver.cuLaunchKernel(new CUfunction(), 300_000, 1, 1, 1, 1, 1, 0, stream, null, null);

        assertThat(launch(stream, 3)).isZero();

        DeviceActivity kernel = awaitDelivered(1).get(0);
        FakeGpu.synchronize(address(stream));
        List<FakeGpu.Work> work = FakeGpu.takeFinished().stream().filter(w -> w.stream() == address(stream)).toList();
        assertThat(work).hasSize(2);
        assertThat(work.get(1).start()).as("the sampled kernel starts as the busy work ends").isEqualTo(work.get(0).end());
        assertThat(kernel.endNs() - kernel.startNs()).isBetween(3 * US - 50, 3 * US + 50);
    }

    @Test
    void aLaunchThatThrowsOrIsRefusedOpensItsGateAndLeavesNoSample() throws Throwable {
        sampler = EventPairSampler.install(1, 0, delivered::add);
        CUstream stream = newStream();

        try {
            launch(stream, -1);
        } catch (IllegalArgumentException expected) {
            assertThat(expected).hasMessage("the application's own failure");
        }
        assertThat(FakeGpu.closedGates()).isZero();
        assertThat(launch(stream, 0)).isEqualTo(JCudaLaunchTarget.REFUSED);
        assertThat(FakeGpu.closedGates()).isZero();

        assertThat(launch(stream, 5)).isZero();
        assertThat(awaitDelivered(1)).singleElement().satisfies(k -> assertThat(k.grid().x()).isEqualTo(5));
    }

    @Test
    void aStreamCapturingIntoAGraphIsNeverSampled() throws Throwable {
        sampler = EventPairSampler.install(1, 0, delivered::add);
        CUstream stream = newStream();
        long s = address(stream);
        FakeGpu.capturing(s, true);
        try {
            assertThat(launch(stream, 2)).isZero();
            assertThat(launch(stream, 2)).isZero();
        } finally {
            FakeGpu.capturing(s, false);
        }
        assertThat(FakeGpu.log()).noneMatch(l -> l.startsWith("wait " + s) || l.startsWith("record") && l.endsWith("@" + s));

        assertThat(launch(stream, 4)).isZero();
        assertThat(awaitDelivered(1)).singleElement().satisfies(k -> assertThat(k.grid().x()).isEqualTo(4));
    }

    @Test
    void slotsAreRecycledOnceTheDrainHasReadThem() throws Throwable {
        sampler = EventPairSampler.install(1, 0, delivered::add);
        CUstream stream = newStream();
        int launches = 3 * ContextSlots.SLOTS;

        for (int i = 0; i < launches; i++) {
            launch(stream, 1);
            if (i % 64 == 63) {
                awaitDelivered(i + 1);
            }
        }

        assertThat(awaitDelivered(launches)).hasSize(launches);
        assertThat(FakeGpu.closedGates()).isZero();
    }

    @Test
    void withEverySlotInFlightALaunchIsNotSampledAndNotHeldUp() throws Throwable {
        sampler = EventPairSampler.install(1, 0, delivered::add);
        CUstream stream = newStream();

        for (int i = 0; i <= ContextSlots.SLOTS; i++) {
            launch(stream, 1);
        }

        assertThat(FakeGpu.log().stream().filter(l -> l.startsWith("wait " + address(stream) + "<-word")))
                .hasSize(ContextSlots.SLOTS);
        assertThat(awaitDelivered(ContextSlots.SLOTS)).hasSize(ContextSlots.SLOTS);
    }

    @Test
    void aDrainStuckInAQueryDoesNotHoldUpLaunches() throws Throwable {
        sampler = EventPairSampler.install(1, 0, delivered::add);
        CUstream stream = newStream();
        launch(stream, 1);
        CountDownLatch hold = new CountDownLatch(1);
        FakeGpu.holdQueries(hold);
        Thread drain = new Thread(sampler::poll, "stuck-drain");
        drain.start();
        try {
            awaitStuckInQuery(drain);

            // on a thread of its own, so that a launch held up fails the test instead of hanging it
            FutureTask<Integer> launches = new FutureTask<>(() -> {
                int failures = 0;
                for (int i = 0; i < 20; i++) {
                    failures += launch(stream, 1);
                }
                return failures;
            });
            Thread launcher = new Thread(launches, "launcher");
            launcher.setDaemon(true);
            launcher.start();
            assertThat(launches.get(10, TimeUnit.SECONDS)).as("20 sampled launches while the drain is stuck").isZero();
            assertThat(drain.isAlive()).as("the drain is still stuck").isTrue();
        } finally {
            hold.countDown();
            drain.join(TimeUnit.SECONDS.toMillis(10));
        }
        assertThat(awaitDelivered(21)).hasSize(21);
    }

    @Test
    void theWatchdogOpensTheGateOfALaunchThatNeverCameBack() throws Throwable {
        sampler = EventPairSampler.install(1, 0, delivered::add);
        CUstream stream = newStream();
        long s = address(stream);
        assertThat(EventPairSampler.due(s)).isTrue();
        int sample = EventPairSampler.before(s); // and the launching thread is never heard of again
        assertThat(sample).isNotNegative();
        assertThat(FakeGpu.closedGates()).isEqualTo(1);

        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(EventPairSampler.GATE_WATCHDOG_NS) + 100);
        sampler.poll();

        assertThat(FakeGpu.closedGates()).isZero();
        EventPairSampler.after(sample, s, 0x1234, 1, 1, true); // it did come back after all: the sample is dropped
        sampler.poll();
        assertThat(delivered).isEmpty();
    }

    @Test
    void withoutStreamMemoryOperationsSamplesAreTakenUngated() throws Throwable {
        FakeGpu.memoryOperations(false);
        sampler = EventPairSampler.install(1, 0, delivered::add);
        CUstream stream = newStream();

        assertThat(launch(stream, 6)).isZero();

        DeviceActivity kernel = awaitDelivered(1).get(0);
        assertThat(kernel.endNs() - kernel.startNs()).as("A ran before the kernel was submitted").isGreaterThanOrEqualTo(6 * US);
        assertThat(FakeGpu.log()).noneMatch(l -> l.startsWith("wait " + address(stream) + "<-word"));
    }

    @Test
    void aSampledLaunchAllocatesNothingOnTheLaunchingThread() {
        sampler = EventPairSampler.install(1, 0, delivered::add);
        long stream = address(newStream());
        EventPairSampler.after(EventPairSampler.before(stream), stream, 0x40, 1, 1, true); // the context's set-up
        FakeGpu.stopSimulating(); // the doubles' natives then do nothing, like a driver call: what is left is ours
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long allocated = 0;
        long samples = 0;
        for (int batch = 0; batch < 300; batch++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 200; i++) {
                int sample = EventPairSampler.before(stream);
                EventPairSampler.after(sample, stream, 0x40, 1, 1, true);
            }
            long after = threads.getCurrentThreadAllocatedBytes();
            if (batch >= 150) { // warm: compiled
                allocated += after - before;
                samples += 200;
            }
            sampler.poll(); // the drain's allocation is the drain thread's; here it only frees the slots
            for (CallBuffer b : Recorder.buffers()) {
                b.drain((buffer, seq, rows, o) -> { });
            }
        }
        assertThat(delivered).hasSizeGreaterThan(300 * 200 - ContextSlots.SLOTS); // every sample was taken
        assertThat((double) allocated / samples).as("bytes per sample").isLessThan(0.01);
    }

    private static int launch(CUstream stream, int gridX) throws Exception {
        try {
            return (int) launch.invokeExact(new CUfunction(), gridX, 1, 1, 32, 1, 1, 0, stream, (Pointer) null,
                    (Pointer) null);
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static CUstream newStream() {
        CUstream s = new CUstream();
        JCudaDriver.cuStreamCreate(s, 0);
        return s;
    }

    private static long address(CUstream s) {
        return Handles.address(s);
    }

    /** Polls as the drain thread would until {@code count} samples are delivered (or 10 s have passed). */
    private List<DeviceActivity> awaitDelivered(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (delivered.size() < count && System.nanoTime() < deadline) {
            sampler.poll();
            Thread.sleep(1);
        }
        assertThat(delivered).as("samples delivered").hasSize(count);
        return delivered;
    }

    private static void awaitStuckInQuery(Thread drain) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (drain.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(drain.getState()).as("the drain waits inside cuEventQuery").isEqualTo(Thread.State.WAITING);
    }
}
