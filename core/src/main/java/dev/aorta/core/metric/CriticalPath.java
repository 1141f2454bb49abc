package dev.aorta.core.metric;

import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * The critical path of a window (docs/metrics.md#critical-path): the chain of dependencies that set when its last
 * device work ended, split into host-bound and device-bound time.
 *
 * <p>The dependency graph: host calls in program order on each thread (a call can start when the previous call of
 * its thread has ended); launch → the device work it launched (by correlation id: the work can start once the call
 * has started); stream order (an activity can start when the previous activity of its stream has ended); event
 * record → wait (an activity on the waiting stream, enqueued after the wait, can start when the work the recording
 * stream had enqueued before the record has ended); and a synchronize call (a name containing
 * {@code Synchronize}) ends once the device work it waited for has ended (the last activity, on the call's stream,
 * or on any stream for a device-wide or stream-0 call, that ended while the call ran).
 *
 * <p>Every node starts when its last predecessor is ready (as soon as possible), so the longest path to the window's
 * last-ending activity is found by walking back from it, at each node to its <b>binding predecessor</b>: the one
 * ready last. The path's time, from where it starts (clipped to the window's lower bound) to its end, is split into:
 * <ul>
 *   <li><b>host</b>: time in host calls on the path and the gaps between consecutive calls of a thread (host work
 *   between GPU calls): host-bound time, which a faster device would not shorten;</li>
 *   <li><b>device</b>: time in device activities on the path and the gaps behind stream-order and event
 *   dependencies: device-bound time;</li>
 *   <li><b>launch</b>: from a launch call's start to the start of the work it launched, where the path goes from the
 *   host to the device (launch overhead and queueing in the driver).</li>
 * </ul>
 * A path that reaches a node without predecessors starts there; the window time before it is on no path.
 */
public record CriticalPath(long startNs, long endNs, long hostNs, long deviceNs, long launchNs, int hostCalls,
                           int deviceActivities) {

    public long lengthNs() {
        return endNs - startNs;
    }

    /**
     * The indexes of a timeline that every window's walk uses, built once. Calls are referred to by their index in
     * the timeline's calls, so that a timeline holding millions of them need not keep them as objects.
     */
    public static final class Graph {
        private final List<DeviceActivity> activities;
        private final List<ApiCall> calls;
        private final int[] launchOf;
        private final int[] previousOnStream;
        private final Map<Long, List<Dependency>> waitsByStream = new HashMap<>();
        private final Map<Long, int[]> streamByStart = new HashMap<>();
        private final int[] byEnd;
        private final long[] endsSorted;
        /** Per thread, its calls' indexes in order of start; per call, its position there. */
        private final Map<Long, int[]> threadCalls = new HashMap<>();
        private final int[] positionOnThread;

        /**
         * @param activities the timeline's activities, sorted by start
         * @param included   which of them take part (OTHER records do not)
         * @param launchOf   each activity's launch call (an index into {@code calls}), or -1
         */
        public Graph(List<DeviceActivity> activities, IntPredicate included, int[] launchOf, List<ApiCall> calls,
                     List<Dependency> dependencies) {
            this.activities = activities;
            this.calls = calls;
            this.launchOf = launchOf;
            this.previousOnStream = new int[activities.size()];
            // each activity read once (a timeline's list may make a record per read); the orders below are stable
            // sorts of primitive keys (StableOrder), as the boxed sorts with a key comparator they replace were
            int[] includedIndex = new int[activities.size()];
            long[] includedEnd = new long[activities.size()];
            int includedCount = 0;
            Map<Long, Integer> last = new HashMap<>();
            Map<Long, List<Integer>> perStream = new HashMap<>();
            for (int i = 0; i < activities.size(); i++) {
                if (!included.test(i)) {
                    previousOnStream[i] = -1;
                    continue;
                }
                DeviceActivity a = activities.get(i);
                long s = a.stream();
                previousOnStream[i] = last.getOrDefault(s, -1);
                last.put(s, i);
                perStream.computeIfAbsent(s, x -> new ArrayList<>()).add(i);
                includedIndex[includedCount] = i;
                includedEnd[includedCount++] = a.endNs();
            }
            perStream.forEach((s, l) -> streamByStart.put(s, l.stream().mapToInt(Integer::intValue).toArray()));
            // the included activities by end, equal ends in index order
            int[] order = StableOrder.byKey(includedCount, k -> includedEnd[k]);
            byEnd = new int[includedCount];
            endsSorted = new long[includedCount];
            for (int k = 0; k < includedCount; k++) {
                byEnd[k] = includedIndex[order[k]];
                endsSorted[k] = includedEnd[order[k]];
            }
            for (Dependency d : dependencies) {
                waitsByStream.computeIfAbsent(d.waitStream(), x -> new ArrayList<>()).add(d);
            }
            waitsByStream.values().forEach(l -> l.sort((a, b) -> Long.compare(a.waitNs(), b.waitNs())));
            long[] starts = new long[calls.size()];
            long[] threads = new long[calls.size()];
            for (int i = 0; i < starts.length; i++) {
                ApiCall c = calls.get(i);
                starts[i] = c.startNs();
                threads[i] = c.thread();
            }
            // per thread, its calls in order of start (equal starts in the calls' order)
            Map<Long, List<Integer>> perThread = new HashMap<>();
            for (int i : StableOrder.byKey(starts.length, i -> starts[i])) {
                perThread.computeIfAbsent(threads[i], x -> new ArrayList<>()).add(i);
            }
            positionOnThread = new int[starts.length];
            perThread.forEach((thread, l) -> {
                int[] onThread = l.stream().mapToInt(Integer::intValue).toArray();
                for (int k = 0; k < onThread.length; k++) {
                    positionOnThread[onThread[k]] = k;
                }
                threadCalls.put(thread, onThread);
            });
        }
    }

    /**
     * The critical path ending at activity {@code last} (the window's last-ending one), walked back no further than
     * {@code lowerBoundNs} (the window's start, or its host step's start when earlier).
     */
    public static CriticalPath of(Graph g, int last, long lowerBoundNs) {
        long end = g.activities.get(last).endNs();
        long[] parts = new long[3]; // host, device, launch
        int hostCalls = 0;
        int deviceActivities = 0;
        int node = last;        // an activity index, or a call index when onHost
        boolean onHost = false;
        long nodeEnd = end;   // where the path leaves the node (its end, or a sync call's blocked part's end)
        long pathStart = lowerBoundNs;
        for (int guard = 0; guard < 10_000_000; guard++) {
            if (!onHost) {
                int i = node;
                DeviceActivity a = g.activities.get(i);
                deviceActivities++;
                long start = Math.max(a.startNs(), lowerBoundNs);
                parts[1] += Math.max(0, nodeEnd - start);
                if (a.startNs() <= lowerBoundNs) {
                    pathStart = lowerBoundNs;
                    break;
                }
                // binding predecessor: the one ready last, no later than the activity's start
                int pred = -1;
                long ready = Long.MIN_VALUE;
                int kind = -1; // 1 device (pred is an activity), 2 launch (pred is a call)
                int prev = g.previousOnStream[i];
                if (prev >= 0 && g.activities.get(prev).endNs() <= a.startNs()) {
                    ready = g.activities.get(prev).endNs();
                    pred = prev;
                    kind = 1;
                }
                ApiCall launch = g.launchOf[i] < 0 ? null : g.calls.get(g.launchOf[i]);
                if (launch != null && launch.startNs() <= a.startNs() && launch.startNs() > ready) {
                    ready = launch.startNs();
                    pred = g.launchOf[i];
                    kind = 2;
                }
                int cross = crossStream(g, a, launch == null ? a.startNs() : launch.startNs());
                if (cross >= 0 && g.activities.get(cross).endNs() <= a.startNs()
                        && g.activities.get(cross).endNs() > ready) {
                    ready = g.activities.get(cross).endNs();
                    pred = cross;
                    kind = 1;
                }
                if (pred < 0) {
                    pathStart = start;
                    break;
                }
                long gapFrom = Math.max(ready, lowerBoundNs);
                parts[kind == 2 ? 2 : 1] += Math.max(0, start - gapFrom);
                if (ready <= lowerBoundNs) {
                    pathStart = lowerBoundNs;
                    break;
                }
                // entering a launch call at its start puts none of the call's own time on the path
                node = pred;
                onHost = kind == 2;
                nodeEnd = ready;
            } else {
                ApiCall c = g.calls.get(node);
                hostCalls++;
                long start = Math.max(c.startNs(), lowerBoundNs);
                int waitedFor = isSync(c.name()) ? syncedActivity(g, c, nodeEnd) : -1;
                if (waitedFor >= 0) {
                    // the sync returned after the device work it waited for: the path goes through that work
                    long workEnd = g.activities.get(waitedFor).endNs();
                    parts[0] += Math.max(0, nodeEnd - Math.max(workEnd, lowerBoundNs));
                    if (workEnd <= lowerBoundNs) {
                        pathStart = lowerBoundNs;
                        break;
                    }
                    node = waitedFor;
                    onHost = false;
                    nodeEnd = workEnd;
                    continue;
                }
                parts[0] += Math.max(0, nodeEnd - start);
                if (c.startNs() <= lowerBoundNs) {
                    pathStart = lowerBoundNs;
                    break;
                }
                int prevIndex = previousOnThread(g, node, c);
                ApiCall prev = prevIndex < 0 ? null : g.calls.get(prevIndex);
                if (prev == null) {
                    pathStart = start;
                    break;
                }
                long ready = Math.max(prev.endNs(), lowerBoundNs);
                parts[0] += Math.max(0, start - ready);  // host work between the two calls
                if (prev.endNs() <= lowerBoundNs) {
                    pathStart = lowerBoundNs;
                    break;
                }
                node = prevIndex;
                nodeEnd = prev.endNs();
            }
        }
        return new CriticalPath(pathStart, end, parts[0], parts[1], parts[2], hostCalls, deviceActivities);
    }

    /**
     * Whether a call's name contains "synchronize" or "synchronise", in any case: what the regex (?i)synchroni[sz]e
     * finds, without a matcher made per host call of every window's walk (51 MB of them on a 780 MB trace).
     */
    static boolean isSync(String name) {
        for (int i = 0; i + 11 <= name.length(); i++) {
            if (name.regionMatches(true, i, "synchroni", 0, 9)) {
                char sz = Character.toLowerCase(name.charAt(i + 9));
                if ((sz == 's' || sz == 'z') && Character.toLowerCase(name.charAt(i + 10)) == 'e') {
                    return true;
                }
            }
        }
        return false;
    }

    /** The last activity the recording stream had enqueued before the latest event wait on a's stream up to {@code enqueueNs}. */
    private static int crossStream(Graph g, DeviceActivity a, long enqueueNs) {
        List<Dependency> waits = g.waitsByStream.get(a.stream());
        if (waits == null) {
            return -1;
        }
        Dependency latest = null;
        for (int lo = 0, hi = waits.size(); lo < hi; ) {
            int mid = (lo + hi) >>> 1;
            if (waits.get(mid).waitNs() <= enqueueNs) {
                latest = waits.get(mid);
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (latest == null || latest.recordStream() == a.stream()) {
            return -1;
        }
        int[] recording = g.streamByStart.get(latest.recordStream());
        if (recording == null) {
            return -1;
        }
        int found = -1;
        for (int lo = 0, hi = recording.length; lo < hi; ) {
            int mid = (lo + hi) >>> 1;
            int idx = recording[mid];
            long enqueued = g.launchOf[idx] >= 0 ? g.calls.get(g.launchOf[idx]).startNs()
                    : g.activities.get(idx).startNs();
            if (enqueued <= latest.recordNs()) {
                found = idx;
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return found;
    }

    /** The activity a sync call waited for: the last one that ended while it ran, on its stream or (device-wide) any. */
    private static int syncedActivity(Graph g, ApiCall c, long callEnd) {
        // the first position whose end is after callEnd; everything before it ended by then
        int from = 0;
        for (int lo = 0, hi = g.endsSorted.length; lo < hi; ) {
            int mid = (lo + hi) >>> 1;
            if (g.endsSorted[mid] <= callEnd) {
                from = mid + 1;
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        for (int k = from - 1; k >= 0; k--) {
            DeviceActivity a = g.activities.get(g.byEnd[k]);
            if (a.endNs() <= c.startNs()) {
                return -1;
            }
            if (c.stream() == 0 || a.stream() == c.stream()) {
                return g.byEnd[k];
            }
        }
        return -1;
    }

    /** The index of the last call of c's thread that ended by c's start, or -1. */
    private static int previousOnThread(Graph g, int callIndex, ApiCall c) {
        int[] order = g.threadCalls.get(c.thread());
        for (int k = g.positionOnThread[callIndex] - 1; k >= 0; k--) {
            if (g.calls.get(order[k]).endNs() <= c.startNs()) {
                return order[k];
            }
        }
        return -1;
    }
}
