package dev.aorta.workloads.launchoverhead;

/**
 * What a {@link CodebookDevice} or a {@link StageAllReduce} has issued, counted where it happens: kernel launches
 * and GEMM calls ({@code launches}), host waits for the device ({@code syncs}: device→host reads and the
 * end-of-step synchronization), and collectives ({@code collectives}: all-reduces). One thread.
 */
public final class LaunchCounters {
    private long launches;
    private long syncs;
    private long collectives;

    void launched() {
        launches++;
    }

    void synced() {
        syncs++;
    }

    void collectiveIssued() {
        collectives++;
    }

    public long launches() {
        return launches;
    }

    public long syncs() {
        return syncs;
    }

    public long collectives() {
        return collectives;
    }
}
