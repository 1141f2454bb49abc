package dev.aorta.agent.capture;

/** What is recorded outside capture windows (option {@code between-windows}). */
public enum BetweenWindows {
    /** Host-side API calls (cheap: one ring row each); device activity only inside windows. */
    API,
    /**
     * Nothing, and the recording advice is taken out of the application's classes between windows (retransformation,
     * see {@link RecordingAdvice}): the calls run the library's own code. Where advice cannot be taken out (natives
     * wrapped at load time, {@code bind-collectives}) it stays woven and gated, as with {@link #GATED}.
     */
    OFF,
    /**
     * Nothing; the advice stays woven and returns after one flag read (about 5-10 ns a call). For schedules whose
     * windows come every few iterations, where weaving at each window would disturb the JIT more than it saves.
     */
    GATED
}
