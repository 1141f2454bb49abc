package dev.aorta.launch;

import java.time.Duration;
import java.util.Optional;

/**
 * In a rank started by {@code aorta launch}: exits when the launcher is gone (killed with SIGKILL, it cannot
 * stop its ranks), so that no orphaned rank keeps a GPU busy. The exit runs the shutdown hooks, which abort
 * the rank's communicators.
 */
public final class LauncherWatch {
    /** The launcher's pid, set in every rank's environment. */
    public static final String VARIABLE = "AORTA_LAUNCHER_PID";
    static final int ORPHAN_EXIT_CODE = 143;

    private LauncherWatch() {
    }

    /** Starts watching when this process is a rank of {@code aorta launch}; otherwise does nothing. */
    public static void startIfLaunched() {
        String pid = System.getenv(VARIABLE);
        if (pid == null || pid.isBlank()) {
            return;
        }
        Optional<ProcessHandle> launcher;
        try {
            launcher = ProcessHandle.of(Long.parseLong(pid.trim()));
        } catch (NumberFormatException e) {
            return;  // not ours to judge: the rank runs unwatched
        }
        Thread.ofPlatform().daemon().name("aorta-launcher-watch").start(() -> {
            while (launcher.map(ProcessHandle::isAlive).orElse(false)) {
                try {
                    Thread.sleep(Duration.ofMillis(500));
                } catch (InterruptedException e) {
                    return;
                }
            }
            System.err.println("aorta: the launcher (pid " + pid.trim() + ") is gone; this rank stops");
            System.exit(ORPHAN_EXIT_CODE);
        });
    }
}
