package dev.aorta.analyzer.trace;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs a task for each item on up to as many threads as there are processors and hands the results on in the items'
 * order, one at a time on the calling thread: the files of a trace are read at once, while what depends on the order
 * (merging a file into the ranks read before it) stays sequential. At most one result per thread waits to be handed
 * on, so that memory holds a few files' records, not all of them.
 */
final class ParallelInOrder {
    private ParallelInOrder() {
    }

    interface Task<T, R> {
        R run(T item) throws IOException;
    }

    /** Receives each item's result, or the IOException its task threw (then {@code result} is null). */
    interface Handler<T, R> {
        void accept(T item, R result, IOException failure) throws IOException;
    }

    static <T, R> void forEach(List<T> items, Task<T, R> task, Handler<T, R> handler) throws IOException {
        int threads = Math.min(items.size(), Runtime.getRuntime().availableProcessors());
        if (threads <= 1) {
            for (T item : items) {
                R result;
                try {
                    result = task.run(item);
                } catch (IOException e) {
                    handler.accept(item, null, e);
                    continue;
                }
                handler.accept(item, result, null);
            }
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "aorta-read");
            t.setDaemon(true);
            return t;
        });
        try {
            Deque<Future<R>> pending = new ArrayDeque<>();
            int submitted = 0;
            for (T item : items) {
                while (submitted < items.size() && pending.size() < threads) {
                    T next = items.get(submitted++);
                    pending.add(pool.submit(() -> task.run(next)));
                }
                R result;
                try {
                    result = pending.remove().get();
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof IOException io) {
                        handler.accept(item, null, io);
                        continue;
                    }
                    throw unchecked(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while reading " + item);
                }
                handler.accept(item, result, null);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** What a task threw other than an IOException, as itself (an OutOfMemoryError stays one). */
    private static RuntimeException unchecked(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }
}
