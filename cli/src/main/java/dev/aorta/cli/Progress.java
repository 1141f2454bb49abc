package dev.aorta.cli;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.io.PrintStream;

/** A progress bar on a terminal, one plain line per step otherwise (logs, pipes, CI). */
final class Progress implements AutoCloseable {
    private final ProgressBar bar;
    private final PrintStream plain;
    private final int total;
    private int done;

    private Progress(ProgressBar bar, PrintStream plain, int total) {
        this.bar = bar;
        this.plain = plain;
        this.total = total;
    }

    static Progress start(String task, int total, PrintStream out) {
        java.io.Console console = System.console();
        if (console != null && console.isTerminal()) {
            return new Progress(new ProgressBarBuilder().setTaskName(task).setInitialMax(total)
                    .setStyle(ProgressBarStyle.ASCII).continuousUpdate().build(), null, total);
        }
        return new Progress(null, out, total);
    }

    /** Announces the step about to run. */
    void begin(String step) {
        if (bar != null) {
            bar.setExtraMessage(step);
        } else {
            plain.println("[" + (done + 1) + "/" + total + "] " + step);
            plain.flush();
        }
    }

    void step() {
        done++;
        if (bar != null) {
            bar.step();
        }
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
        }
    }
}
