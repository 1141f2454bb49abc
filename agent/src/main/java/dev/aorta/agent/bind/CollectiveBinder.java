package dev.aorta.agent.bind;

import dev.aorta.agent.AgentLog;
import dev.aorta.agent.config.JoinMode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * {@code bind-collectives=true}: collectives the application issues on its own stream run instead on a
 * dedicated communication stream per device, with the stream order kept:
 * <ol>
 *   <li>before the collective, the comm stream waits for an event recorded on the application stream
 *       (so the collective sees every result the application enqueued before it);</li>
 *   <li>after it, an event recorded on the comm stream is waited for by the application stream at the
 *       join point: {@link JoinMode#IMMEDIATE} (right away; identical ordering, always safe),
 *       {@link JoinMode#NEXT_SYNC} or {@link JoinMode#ITERATION_END} (later; unsafe if kernels enqueued
 *       before the join read the collective's output).</li>
 * </ol>
 * Collectives are milliseconds, not nanoseconds, so this class may lock and allocate; only the
 * {@link #active} check sits on the launch hot path.
 */
public final class CollectiveBinder {
    /** {@link #beforeSync} argument for calls that synchronize more than one stream. */
    public static final long ALL_STREAMS = Long.MIN_VALUE;
    /** cudaStreamNonBlocking: the comm stream must not synchronize with the legacy default stream. */
    static final int NON_BLOCKING = 1;

    /** Read by advice: false unless the binder is installed and has not failed. */
    public static volatile boolean active;
    /**
     * Read by advice of libraries that can supply their own stream operations (JavaCPP's cudart): binding was asked
     * for and has not failed, though it may still wait for them ({@link #awaitOps}).
     */
    public static volatile boolean wanted;
    private static volatile CollectiveBinder instance;
    /** The binding asked for while no library has supplied stream operations yet. */
    private static JoinMode pendingJoin;
    private static int pendingPriority;
    private static BinderListener pendingListener;

    private final StreamOps ops;
    private final JoinMode join;
    private final int priority;
    private final BinderListener listener;
    private final Map<Integer, Long> commStreams = new HashMap<>();
    /** Collectives done on a comm stream that an application stream has not waited for yet. */
    private final List<long[]> pendingJoins = new ArrayList<>();

    CollectiveBinder(StreamOps ops, JoinMode join, int priority, BinderListener listener) {
        this.ops = ops;
        this.join = join;
        this.priority = priority;
        this.listener = listener;
    }

    public static synchronized void install(StreamOps ops, JoinMode join, int priority, BinderListener listener) {
        instance = new CollectiveBinder(ops, join, priority, listener);
        wanted = true;
        active = true;
    }

    /**
     * Binding is asked for but JCuda's driver API, which the agent drives the streams with, is not there: the first
     * collective of a library that brings its own stream operations supplies them ({@link #supplyOps}).
     */
    public static synchronized void awaitOps(JoinMode join, int priority, BinderListener listener) {
        pendingJoin = join;
        pendingPriority = priority;
        pendingListener = listener;
        wanted = true;
    }

    /**
     * Installs the binder with {@code ops} if it waits for them ({@link #awaitOps}); true when the binder is active
     * (installed before, or now). {@code ops} is asked for only then; if it throws, binding stops with one line.
     */
    public static synchronized boolean supplyOps(java.util.function.Supplier<StreamOps> ops, String library) {
        if (active || !wanted || pendingJoin == null) {
            return active;
        }
        try {
            install(ops.get(), pendingJoin, pendingPriority, pendingListener);
            AgentLog.info("bind-collectives: " + library + " supplies the stream operations; collectives move to a comm"
                    + " stream per device (priority " + pendingPriority + ", join " + pendingJoin.option() + ")");
        } catch (RuntimeException | LinkageError e) {
            wanted = false;
            AgentLog.error("bind-collectives cannot use " + library + " (" + e + "); collectives stay on the"
                    + " application's streams");
        }
        pendingJoin = null;
        return active;
    }

    /** For tests: back to the state before {@link #install} or {@link #awaitOps}. */
    public static synchronized void uninstall() {
        active = false;
        wanted = false;
        instance = null;
        pendingJoin = null;
    }

    /** Returns the stream the collective should run on (the comm stream), the comm stream having waited for {@code applicationStream}. */
    public static long beforeCollective(long applicationStream) {
        CollectiveBinder b = instance;
        return b == null ? applicationStream : b.rebind(applicationStream);
    }

    /** The collective is enqueued on {@code commStream}: arrange the application stream's join. */
    public static void afterCollective(long applicationStream, long commStream) {
        CollectiveBinder b = instance;
        if (b != null && applicationStream != commStream) {
            b.collectiveEnqueued(applicationStream, commStream);
        }
    }

    /** About to synchronize {@code stream} (or {@link #ALL_STREAMS}): with next-sync, join there first. */
    public static void beforeSync(long stream) {
        CollectiveBinder b = instance;
        if (b != null && b.join == JoinMode.NEXT_SYNC) {
            b.joinPending(stream);
        }
    }

    /** An iteration ends: every pending join happens now (next-sync's and iteration-end's). */
    public static void atIterationMarker() {
        CollectiveBinder b = instance;
        if (b != null && b.join != JoinMode.IMMEDIATE) {
            b.joinPending(ALL_STREAMS);
        }
    }

    private synchronized long rebind(long applicationStream) {
        try {
            long comm = commStream();
            if (comm == applicationStream) {
                return comm;
            }
            long ready = ops.createEvent();
            ops.recordEvent(ready, applicationStream);
            ops.streamWaitEvent(comm, ready);
            ops.destroyEvent(ready);
            listener.dependencyAdded(ready, applicationStream, comm, System.nanoTime());
            return comm;
        } catch (Throwable t) {
            fail("before a collective", t);
            return applicationStream;
        }
    }

    private long commStream() {
        int device = ops.currentDevice();
        Long comm = commStreams.get(device);
        if (comm == null) {
            comm = ops.createStream(NON_BLOCKING, priority);
            commStreams.put(device, comm);
            listener.commStreamCreated(comm, device, priority, NON_BLOCKING);
        }
        return comm;
    }

    private synchronized void collectiveEnqueued(long applicationStream, long commStream) {
        try {
            long done = ops.createEvent();
            ops.recordEvent(done, commStream);
            if (join == JoinMode.IMMEDIATE) {
                joinNow(applicationStream, commStream, done);
            } else {
                pendingJoins.add(new long[] {applicationStream, commStream, done});
            }
        } catch (Throwable t) {
            fail("after a collective", t);
        }
    }

    private synchronized void joinPending(long stream) {
        try {
            for (Iterator<long[]> it = pendingJoins.iterator(); it.hasNext(); ) {
                long[] p = it.next();
                if (stream == ALL_STREAMS || p[0] == stream) {
                    joinNow(p[0], p[1], p[2]);
                    it.remove();
                }
            }
        } catch (Throwable t) {
            fail("joining collectives", t);
        }
    }

    private void joinNow(long applicationStream, long commStream, long done) {
        ops.streamWaitEvent(applicationStream, done);
        ops.destroyEvent(done);
        listener.dependencyAdded(done, commStream, applicationStream, System.nanoTime());
    }

    /** A driver failure: stop rebinding (later collectives stay on the application's stream). */
    private void fail(String where, Throwable t) {
        active = false;
        wanted = false;
        AgentLog.error("bind-collectives failed " + where + " (" + t + "); collectives are no longer rebound");
    }

    /** How many joins are still pending (for tests and the shutdown log). */
    synchronized int pendingJoinCount() {
        return pendingJoins.size();
    }

    static CollectiveBinder current() {
        return instance;
    }
}
