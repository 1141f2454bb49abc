package dev.aorta.workloads.dist;

import dev.aorta.workloads.session.Communicator;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Keeps a rank from hanging in a collective whose peer died: while armed, a daemon thread polls every
 * communicator's asynchronous error and aborts them all at the first error, or when the host made no
 * {@link #progress()} for the timeout. Aborting releases the host from its device wait; the owner then
 * reports {@link #failure()} instead of whatever the aborted work left behind.
 */
public final class CommWatchdog implements AutoCloseable {
    private final List<Communicator> communicators;
    private final Duration timeout;
    private final Thread thread;
    private final AtomicReference<String> failure = new AtomicReference<>();
    private volatile long lastProgressNs;
    private volatile boolean armed;
    private volatile boolean closed;

    public CommWatchdog(List<Communicator> communicators, Duration timeout, Duration pollInterval) {
        this.communicators = List.copyOf(communicators);
        this.timeout = timeout;
        this.thread = Thread.ofPlatform().daemon().name("aorta-comm-watchdog").start(() -> watch(pollInterval));
    }

    /** Starts watching: the timeout counts from now. */
    public void arm() {
        lastProgressNs = System.nanoTime();
        armed = true;
    }

    /** The host got past a wait: the timeout counts again from now. */
    public void progress() {
        lastProgressNs = System.nanoTime();
    }

    /** Stops watching (the collectives are done; the communicators stay as they are). */
    public void disarm() {
        armed = false;
    }

    /** Why the communicators were aborted, if they were. */
    public Optional<String> failure() {
        return Optional.ofNullable(failure.get());
    }

    /** Aborts every communicator now, remembering the first reason given. */
    public void abortAll(String reason) {
        if (failure.compareAndSet(null, reason)) {
            for (Communicator c : communicators) {
                try {
                    c.abort();
                } catch (RuntimeException e) {
                    // the others must still be aborted; the reason already says what went wrong
                }
            }
        }
    }

    private void watch(Duration pollInterval) {
        while (!closed && failure.get() == null) {
            if (armed) {
                for (Communicator c : communicators) {
                    Optional<String> error = c.asyncError();
                    if (error.isPresent()) {
                        abortAll("NCCL reported an asynchronous error on rank " + c.rank() + " of its group of "
                                + c.size() + ": " + error.get() + "; communicators aborted");
                        break;
                    }
                }
                long idleNs = System.nanoTime() - lastProgressNs;
                if (armed && failure.get() == null && idleNs > timeout.toNanos()) {
                    abortAll("no progress for " + timeout.toSeconds() + " s (--comm-timeout) while collectives were "
                            + "outstanding: a peer rank died or hangs; communicators aborted");
                }
            }
            try {
                Thread.sleep(pollInterval.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
