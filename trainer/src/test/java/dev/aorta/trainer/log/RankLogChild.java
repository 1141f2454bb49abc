package dev.aorta.trainer.log;

import dev.aorta.trainer.config.LoggingConfig.Level;

import java.nio.file.Path;

/** Logs three lines, says so on stdout, then waits to be killed without closing the log: the kill test's child. */
public final class RankLogChild {
    private RankLogChild() {
    }

    public static void main(String[] args) throws Exception {
        RankLog log = RankLog.open(Path.of(args[0]), 0, Level.INFO);
        for (int i = 0; i < 3; i++) {
            log.info("line " + i);
        }
        System.out.println("logged 3");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
