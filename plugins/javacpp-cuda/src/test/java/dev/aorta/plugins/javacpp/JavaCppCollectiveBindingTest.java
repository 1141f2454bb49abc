package dev.aorta.plugins.javacpp;

import dev.aorta.agent.advice.CallId;
import dev.aorta.agent.bind.BinderListener;
import dev.aorta.agent.bind.CollectiveBinder;
import dev.aorta.agent.bind.StreamOps;
import dev.aorta.agent.config.JoinMode;
import dev.aorta.agent.recorder.CallTable;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import example.javacpp.ShapedGpu;
import example.javacpp.ShapedNccl;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * bind-collectives for JavaCPP's NCCL: the plugin's advice woven into JavaCPP-shaped methods with Java bodies (the
 * real ones are natives), the binder driven by a recording fake of the stream operations, as the JCuda path's
 * binder test does. Results are bit-identical with and without binding; only the stream the collective runs on,
 * and the events around it, change. On a GPU: scripts/bind-check.sh covers the aorta-gpu path; the JavaCPP one
 * needs JavaCPP's CUDA natives, which the project does not ship (see docs/agent.md).
 */
class JavaCppCollectiveBindingTest {
    static final long APP = 0xA00;
    static final int COUNT = 1000;

    final List<String> ops = ShapedGpu.LOG;
    final StreamOps fake = new StreamOps() {
        long next = 0xC00;

        @Override
        public int currentDevice() {
            return 0;
        }

        @Override
        public long createStream(int flags, int priority) {
            ops.add("createStream flags=" + flags + " priority=" + priority);
            return 0xC0C0;
        }

        @Override
        public long createEvent() {
            return ++next;
        }

        @Override
        public void recordEvent(long event, long stream) {
            ops.add("record " + Long.toHexString(event) + " on " + Long.toHexString(stream));
        }

        @Override
        public void streamWaitEvent(long stream, long event) {
            ops.add("wait " + Long.toHexString(stream) + " for " + Long.toHexString(event));
        }

        @Override
        public void destroyEvent(long event) {
            ops.add("destroy " + Long.toHexString(event));
        }
    };
    final BinderListener quiet = new BinderListener() {
        @Override
        public void commStreamCreated(long stream, int device, int priority, int flags) {
        }

        @Override
        public void dependencyAdded(long event, long recordStream, long waitStream, long atNs) {
        }
    };

    @AfterEach
    void reset() {
        CollectiveBinder.uninstall();
        ShapedGpu.LOG.clear();
    }

    /** The gradients of four steps, all-reduced through the woven ncclAllReduce: every result bit. */
    static int[] allReduceSteps(Method allReduce) throws Exception {
        float[] gradients = new float[COUNT];
        float[] reduced = new float[COUNT];
        ShapedGpu.buffers = new float[][] {gradients, reduced};
        int[] bits = new int[4 * COUNT];
        for (int step = 0; step < 4; step++) {
            for (int i = 0; i < COUNT; i++) {
                gradients[i] = i * 0.1f + step / 3f;
            }
            allReduce.invoke(null, new CUstream_st(0), new CUstream_st(1), (long) COUNT, 7, 0, new ncclComm(0xC000L),
                    new CUstream_st(APP));
            for (int i = 0; i < COUNT; i++) {
                bits[step * COUNT + i] = Float.floatToRawIntBits(reduced[i]);
            }
        }
        return bits;
    }

    @Test
    void immediate_theCollectiveRunsOnTheCommStreamBetweenTheTwoWaits_andItsResultsAreBitIdentical() throws Exception {
        Class<?> woven = weave();
        Method allReduce = woven.getMethod("ncclAllReduce", Pointer.class, Pointer.class, long.class, int.class,
                int.class, ncclComm.class, CUstream_st.class);
        int[] unbound = allReduceSteps(allReduce);
        assertThat(ops).containsOnly("allReduce on a00");
        ops.clear();

        CollectiveBinder.install(fake, JoinMode.IMMEDIATE, -2, quiet);
        int[] bound = allReduceSteps(allReduce);

        assertThat(bound).isEqualTo(unbound);
        assertThat(ops.subList(0, 8)).containsExactly(
                "createStream flags=1 priority=-2",
                "record c01 on a00", "wait c0c0 for c01", "destroy c01",
                "allReduce on c0c0",
                "record c02 on c0c0", "wait a00 for c02", "destroy c02");
        assertThat(ops).filteredOn(s -> s.startsWith("allReduce")).containsOnly("allReduce on c0c0").hasSize(4);
    }

    @Test
    void nextSync_laterWorkIsEnqueuedBeforeTheJoin_whichComesRightBeforeTheStreamSynchronize() throws Exception {
        Class<?> woven = weave();
        Method allReduce = woven.getMethod("ncclAllReduce", Pointer.class, Pointer.class, long.class, int.class,
                int.class, ncclComm.class, CUstream_st.class);
        Method sync = woven.getMethod("cudaStreamSynchronize", CUstream_st.class);
        float[] gradients = new float[COUNT];
        ShapedGpu.buffers = new float[][] {gradients, new float[COUNT]};
        CollectiveBinder.install(fake, JoinMode.NEXT_SYNC, 0, quiet);

        allReduce.invoke(null, new CUstream_st(0), new CUstream_st(1), (long) COUNT, 7, 0, new ncclComm(0xC000L),
                new CUstream_st(APP));
        ops.add("-- later kernels on a00 --");
        sync.invoke(null, new CUstream_st(APP));

        assertThat(ops.subList(ops.indexOf("allReduce on c0c0"), ops.size())).containsExactly(
                "allReduce on c0c0", "record c02 on c0c0", "-- later kernels on a00 --",
                "wait a00 for c02", "destroy c02", "sync a00");
    }

    @Test
    void withoutJCuda_theFirstCollectiveAsksJavaCppsCudartForTheStreams_aFailureThereLeavesItOnTheApplicationStream()
            throws Exception {
        Class<?> woven = weave();
        Method allReduce = woven.getMethod("ncclAllReduce", Pointer.class, Pointer.class, long.class, int.class,
                int.class, ncclComm.class, CUstream_st.class);
        int[] unbound = allReduceSteps(allReduce);
        ops.clear();
        // the test double of cudart has natives without a library: its first stream operation fails
        CollectiveBinder.awaitOps(JoinMode.IMMEDIATE, 0, quiet);

        int[] result = allReduceSteps(allReduce);

        assertThat(result).isEqualTo(unbound);
        assertThat(ops).containsOnly("allReduce on a00");
        assertThat(CollectiveBinder.wanted).isFalse();
    }

    /** ShapedNccl with the plugin's advice woven in, as the agent weaves it into JavaCPP's classes. */
    private static Class<?> weave() {
        int reduce = CallTable.register(Interception.of(ShapedNccl.class.getName(), "ncclAllReduce", 7,
                CallKind.COLLECTIVE, JavaCppReduceAdvice.class));
        int sync = CallTable.register(Interception.of(ShapedNccl.class.getName(), "cudaStreamSynchronize", 1,
                CallKind.SYNC, JavaCppStreamAdvice.class));
        return new ByteBuddy().redefine(ShapedNccl.class).name("example.javacpp.WovenNccl" + System.nanoTime())
                .visit(Advice.withCustomMapping().bind(CallId.class, reduce).to(JavaCppReduceAdvice.class)
                        .on(named("ncclAllReduce")))
                .visit(Advice.withCustomMapping().bind(CallId.class, sync).to(JavaCppStreamAdvice.class)
                        .on(named("cudaStreamSynchronize")))
                .make().load(JavaCppCollectiveBindingTest.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER)
                .getLoaded();
    }
}
