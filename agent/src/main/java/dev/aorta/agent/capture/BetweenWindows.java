package dev.aorta.agent.capture;

/** What is recorded outside capture windows (option {@code between-windows}). */
public enum BetweenWindows {
    /** Host-side API calls (cheap: one ring row each); device activity only inside windows. */
    API,
    /** Nothing: the advice returns after one flag read, as close to no agent as woven code gets. */
    OFF
}
