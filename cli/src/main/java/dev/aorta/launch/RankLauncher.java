package dev.aorta.launch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Starts the ranks of one node as child processes with the distributed environment, prefixes their output
 * lines with {@code [rank N] }, and stops them all when one fails, when the job outlives its timeout, or when
 * {@link #stopAll} is called (Ctrl-C): SIGTERM first, SIGKILL {@link #GRACE} later, so every rank is gone
 * within 10 s.
 */
public final class RankLauncher {
    static final Duration GRACE = Duration.ofSeconds(5);
    private static final long POLL_MS = 50;

    /** Exit code when a rank failed (its own code is in the message). */
    public static final int RANK_FAILED = 1;
    /** Exit code when the launcher was interrupted (128 + SIGINT, like a shell). */
    public static final int INTERRUPTED = 130;
    /** Exit code when the job ran past its timeout (like timeout(1)). */
    public static final int TIMED_OUT = 124;

    /**
     * @param command  the child's argv, the same for every rank
     * @param timeout  the longest the whole job may run; null: no limit
     */
    public record Spec(int nprocPerNode, int nnodes, int nodeRank, String masterAddr, int masterPort,
                       Duration timeout, List<String> command, Map<String, String> extraEnv) {
        public int worldSize() {
            return nprocPerNode * nnodes;
        }

        public int globalRank(int localRank) {
            return nodeRank * nprocPerNode + localRank;
        }
    }

    private final Spec spec;
    private final PrintStream out;
    private final PrintStream err;
    private final List<Rank> ranks = new ArrayList<>();
    private volatile boolean stopping;

    public RankLauncher(Spec spec, PrintStream out, PrintStream err) {
        this.spec = spec;
        this.out = out;
        this.err = err;
    }

    /** One child process and what the launcher remembers of its output. */
    private static final class Rank {
        final int rank;
        final Process process;
        final List<Thread> pumps = new ArrayList<>();
        volatile String lastErrorLine;
        volatile String lastOutputLine;

        Rank(int rank, Process process) {
            this.rank = rank;
            this.process = process;
        }

        /** "its last error line: ...", the last output line when it wrote no errors. */
        String lastLine() {
            return lastErrorLine != null ? "its last error line: " + lastErrorLine
                    : lastOutputLine != null ? "its last output line: " + lastOutputLine : "it wrote nothing";
        }
    }

    /** The environment of local rank {@code local}: the names torchrun uses, so the same commands run under it. */
    Map<String, String> environment(int local) {
        Map<String, String> env = new java.util.LinkedHashMap<>();
        env.put("RANK", Integer.toString(spec.globalRank(local)));
        env.put("LOCAL_RANK", Integer.toString(local));
        env.put("WORLD_SIZE", Integer.toString(spec.worldSize()));
        env.put("LOCAL_WORLD_SIZE", Integer.toString(spec.nprocPerNode()));
        env.put("GROUP_RANK", Integer.toString(spec.nodeRank()));
        env.put("MASTER_ADDR", spec.masterAddr());
        env.put("MASTER_PORT", Integer.toString(spec.masterPort()));
        env.put("AORTA_LAUNCHER", "aorta");
        env.put(LauncherWatch.VARIABLE, Long.toString(ProcessHandle.current().pid()));
        env.put("NCCL_NVLS_ENABLE", "0");  // never NVLink multicast on the shared hosts (docs/architecture.md#gpu-hosts-without-a-jdk)
        env.putAll(spec.extraEnv());
        return env;
    }

    /** Runs the job to its end and returns the launcher's exit code; failures are explained on {@code err}. */
    public int run() throws IOException {
        long start = System.nanoTime();
        for (int local = 0; local < spec.nprocPerNode(); local++) {
            ProcessBuilder pb = new ProcessBuilder(spec.command());
            pb.environment().putAll(environment(local));
            Rank r;
            try {
                r = new Rank(spec.globalRank(local), pb.start());
            } catch (IOException e) {
                stopAll();
                throw new IOException("cannot start rank " + spec.globalRank(local) + " (" + spec.command().getFirst()
                        + "): " + e.getMessage(), e);
            }
            synchronized (ranks) {
                ranks.add(r);
            }
            r.pumps.add(pump(r, r.process.getInputStream(), out, false));
            r.pumps.add(pump(r, r.process.getErrorStream(), err, true));
        }
        while (true) {
            Rank failed = null;
            boolean allDone = true;
            for (Rank r : snapshot()) {
                if (r.process.isAlive()) {
                    allDone = false;
                } else if (r.process.exitValue() != 0 && failed == null) {
                    failed = r;
                }
            }
            if (stopping) {
                return INTERRUPTED;
            }
            if (failed != null) {
                awaitPumps(failed);
                List<Integer> stopped = stopAll();
                err.println("aorta launch: rank " + failed.rank + " (pid " + failed.process.pid() + ") failed: "
                        + describeExit(failed.process.exitValue()) + "; " + failed.lastLine());
                if (!stopped.isEmpty()) {
                    err.println("aorta launch: stopped rank" + (stopped.size() == 1 ? " " : "s ") + join(stopped)
                            + " (SIGTERM, SIGKILL after " + GRACE.toSeconds() + " s)");
                }
                return RANK_FAILED;
            }
            if (allDone) {
                snapshot().forEach(this::awaitPumps);
                return 0;
            }
            if (spec.timeout() != null && System.nanoTime() - start > spec.timeout().toNanos()) {
                List<Integer> running = new ArrayList<>();
                for (Rank r : snapshot()) {
                    if (r.process.isAlive()) {
                        running.add(r.rank);
                    }
                }
                stopAll();
                Rank first = snapshot().stream().filter(r -> running.contains(r.rank)).findFirst().orElseThrow();
                err.println("aorta launch: rank" + (running.size() == 1 ? " " : "s ") + join(running)
                        + " still running after --timeout " + spec.timeout().toSeconds() + " s: stopped; rank "
                        + first.rank + ": " + first.lastLine());
                return TIMED_OUT;
            }
            sleep(POLL_MS);
        }
    }

    /** Ctrl-C or SIGTERM to the launcher: stops every rank (see {@link #stopAll}) and ends {@link #run}. */
    public List<Integer> interrupt() {
        stopping = true;
        return stopAll();
    }

    /**
     * Stops every rank still running: SIGTERM, then SIGKILL to it and its descendants after {@link #GRACE}.
     * Returns the ranks that were still running.
     */
    List<Integer> stopAll() {
        List<Rank> alive = snapshot().stream().filter(r -> r.process.isAlive()).toList();
        for (Rank r : alive) {
            r.process.destroy();
        }
        long deadline = System.nanoTime() + GRACE.toNanos();
        for (Rank r : alive) {
            long leftMs = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
            try {
                if (!r.process.waitFor(leftMs, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    r.process.descendants().forEach(ProcessHandle::destroyForcibly);
                    r.process.destroyForcibly();
                    r.process.waitFor(2, java.util.concurrent.TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                r.process.destroyForcibly();
            }
        }
        return alive.stream().map(r -> r.rank).toList();
    }

    private List<Rank> snapshot() {
        synchronized (ranks) {
            return List.copyOf(ranks);
        }
    }

    private Thread pump(Rank r, InputStream in, PrintStream to, boolean errors) {
        String prefix = "[rank " + r.rank + "] ";
        return Thread.ofPlatform().daemon().name("rank-" + r.rank + (errors ? "-err" : "-out")).start(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    if (!line.isBlank()) {
                        if (errors) {
                            r.lastErrorLine = line;
                        } else {
                            r.lastOutputLine = line;
                        }
                    }
                    synchronized (to) {
                        to.println(prefix + line);
                    }
                }
            } catch (IOException e) {
                // the child is gone; what it wrote has been passed on
            }
        });
    }

    /** Lets a finished rank's last lines reach the output (and its last error line be known). */
    private void awaitPumps(Rank r) {
        for (Thread t : r.pumps) {
            try {
                t.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    static String describeExit(int code) {
        if (code > 128 && code < 128 + 65) {
            int signal = code - 128;
            String name = switch (signal) {
                case 2 -> "SIGINT";
                case 6 -> "SIGABRT";
                case 9 -> "SIGKILL";
                case 11 -> "SIGSEGV";
                case 15 -> "SIGTERM";
                default -> "signal " + signal;
            };
            return "killed by " + name + " (exit code " + code + ")";
        }
        return "exit code " + code;
    }

    private static String join(List<Integer> ranks) {
        StringJoiner j = new StringJoiner(", ");
        ranks.forEach(r -> j.add(Integer.toString(r)));
        return j.toString();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
