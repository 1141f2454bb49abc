package dev.aorta.agent.bind;

import dev.aorta.agent.config.JoinMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The binder's event/stream choreography against a recording fake of the driver. */
class CollectiveBinderTest {
    static final long APP = 0xA00, OTHER_APP = 0xB00;

    final List<String> ops = new ArrayList<>();
    final List<String> trace = new ArrayList<>();

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

    final BinderListener listener = new BinderListener() {
        @Override
        public void commStreamCreated(long stream, int device, int priority, int flags) {
            trace.add("comm stream " + Long.toHexString(stream));
        }

        @Override
        public void dependencyAdded(long event, long recordStream, long waitStream, long atNs) {
            trace.add(Long.toHexString(waitStream) + " waits for " + Long.toHexString(recordStream));
        }
    };

    @AfterEach
    void uninstall() {
        CollectiveBinder.uninstall();
    }

    @Test
    void immediate_commWaitsForApp_thenAppWaitsForCommRightAfterTheCollective() {
        CollectiveBinder.install(fake, JoinMode.IMMEDIATE, -2, listener);

        long runOn = CollectiveBinder.beforeCollective(APP);
        ops.add("allReduce on " + Long.toHexString(runOn));
        CollectiveBinder.afterCollective(APP, runOn);

        assertThat(runOn).isEqualTo(0xC0C0);
        assertThat(ops).containsExactly(
                "createStream flags=1 priority=-2",
                "record c01 on a00", "wait c0c0 for c01", "destroy c01",
                "allReduce on c0c0",
                "record c02 on c0c0", "wait a00 for c02", "destroy c02");
        assertThat(trace).containsExactly("comm stream c0c0", "c0c0 waits for a00", "a00 waits for c0c0");
    }

    @Test
    void theCommStreamIsCreatedOncePerDevice() {
        CollectiveBinder.install(fake, JoinMode.IMMEDIATE, 0, listener);
        for (int i = 0; i < 3; i++) {
            CollectiveBinder.afterCollective(APP, CollectiveBinder.beforeCollective(APP));
        }
        assertThat(ops).filteredOn(s -> s.startsWith("createStream")).hasSize(1);
    }

    @Test
    void nextSync_joinsOnlyWhenThatStreamOrEverythingIsSynchronized() {
        CollectiveBinder.install(fake, JoinMode.NEXT_SYNC, 0, listener);
        CollectiveBinder.afterCollective(APP, CollectiveBinder.beforeCollective(APP));
        CollectiveBinder.afterCollective(OTHER_APP, CollectiveBinder.beforeCollective(OTHER_APP));
        ops.add("-- later kernels on a00 --");

        assertThat(CollectiveBinder.current().pendingJoinCount()).isEqualTo(2);
        CollectiveBinder.beforeSync(APP);
        assertThat(ops.subList(ops.indexOf("-- later kernels on a00 --"), ops.size()))
                .containsExactly("-- later kernels on a00 --", "wait a00 for c02", "destroy c02");
        assertThat(CollectiveBinder.current().pendingJoinCount()).isEqualTo(1);
        CollectiveBinder.beforeSync(CollectiveBinder.ALL_STREAMS);
        assertThat(ops).endsWith("wait b00 for c04", "destroy c04");
        assertThat(CollectiveBinder.current().pendingJoinCount()).isZero();
    }

    @Test
    void iterationEnd_ignoresSyncsAndJoinsAtTheIterationMarker() {
        CollectiveBinder.install(fake, JoinMode.ITERATION_END, 0, listener);
        CollectiveBinder.afterCollective(APP, CollectiveBinder.beforeCollective(APP));
        CollectiveBinder.beforeSync(APP);
        assertThat(CollectiveBinder.current().pendingJoinCount()).isEqualTo(1);
        CollectiveBinder.atIterationMarker();
        assertThat(ops).endsWith("wait a00 for c02", "destroy c02");
        assertThat(CollectiveBinder.current().pendingJoinCount()).isZero();
    }

    @Test
    void aDriverFailureLeavesTheCollectiveOnTheApplicationStreamAndSwitchesBindingOff() {
        StreamOps failing = new StreamOps() {
            @Override
            public int currentDevice() {
                return 0;
            }

            @Override
            public long createStream(int flags, int priority) {
                throw new IllegalStateException("cuStreamCreateWithPriority returned CUDA error 2");
            }

            @Override
            public long createEvent() {
                return 1;
            }

            @Override
            public void recordEvent(long event, long stream) {
            }

            @Override
            public void streamWaitEvent(long stream, long event) {
            }

            @Override
            public void destroyEvent(long event) {
            }
        };
        CollectiveBinder.install(failing, JoinMode.IMMEDIATE, 0, listener);
        assertThat(CollectiveBinder.beforeCollective(APP)).isEqualTo(APP);
        assertThat(CollectiveBinder.active).isFalse();
    }
}
