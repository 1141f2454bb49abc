package dev.aorta.workloads.spi;

import java.util.Locale;

/** How much a workload's result moves with the cost of switching between hardware queues. */
public enum SwitchLatencySensitivity {
    LOW, MEDIUM, HIGH, CRITICAL;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
