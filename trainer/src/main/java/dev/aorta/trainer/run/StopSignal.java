package dev.aorta.trainer.run;

import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.util.concurrent.atomic.AtomicReference;

/**
 * SIGINT and SIGTERM ask training to stop after the current step (as AORTA's trainer does), so that the metrics
 * file, the weights and the batch dump are complete; the previous handlers come back on {@link #close()}.
 */
@SuppressWarnings("sunapi")
public final class StopSignal implements AutoCloseable {
    private final AtomicReference<String> received = new AtomicReference<>();
    private final SignalHandler previousInt;
    private final SignalHandler previousTerm;

    private StopSignal() {
        SignalHandler h = sig -> received.compareAndSet(null, "SIG" + sig.getName());
        previousInt = Signal.handle(new Signal("INT"), h);
        previousTerm = Signal.handle(new Signal("TERM"), h);
    }

    public static StopSignal install() {
        return new StopSignal();
    }

    /** The signal's name once one arrived, else null. */
    public String received() {
        return received.get();
    }

    @Override
    public void close() {
        Signal.handle(new Signal("INT"), previousInt);
        Signal.handle(new Signal("TERM"), previousTerm);
    }
}
