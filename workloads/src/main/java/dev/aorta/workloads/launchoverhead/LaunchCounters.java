package dev.aorta.workloads.launchoverhead;

/**
 * What a {@link CodebookDevice} has issued, counted where it happens: kernel launches and GEMM calls
 * ({@code launches}), and host waits for the device ({@code syncs}: device→host reads and the end-of-step
 * synchronization). One thread.
 */
public final class LaunchCounters {
    private long launches;
    private long syncs;

    void launched() {
        launches++;
    }

    void synced() {
        syncs++;
    }

    public long launches() {
        return launches;
    }

    public long syncs() {
        return syncs;
    }
}
