package dev.aorta.launch;

import java.io.File;
import java.util.Arrays;
import java.util.Map;
import java.util.OptionalInt;

/**
 * How many GPUs the processes of this node can use, known without opening a device (so that too many ranks
 * is an error before any GPU work): the entries of {@code CUDA_VISIBLE_DEVICES} when set, else the
 * {@code /dev/nvidiaN} device files; empty when neither tells (no NVIDIA driver here).
 */
public final class GpuCount {
    private GpuCount() {
    }

    public static OptionalInt visible() {
        return visible(System.getenv(), new File("/dev"));
    }

    static OptionalInt visible(Map<String, String> env, File devDirectory) {
        String visible = env.get("CUDA_VISIBLE_DEVICES");
        if (visible != null) {
            return OptionalInt.of((int) Arrays.stream(visible.split(",")).map(String::trim)
                    .takeWhile(s -> !s.isEmpty() && !s.startsWith("-")).count());
        }
        String[] nodes = devDirectory.list((dir, name) -> name.matches("nvidia\\d+"));
        return nodes == null || nodes.length == 0 ? OptionalInt.empty() : OptionalInt.of(nodes.length);
    }

    /** Fails before any GPU work when {@code ranksOnNode} ranks (one GPU each) do not fit the node's GPUs. */
    public static void requireFits(int ranksOnNode, String what) {
        OptionalInt gpus = visible();
        if (gpus.isPresent() && ranksOnNode > gpus.getAsInt()) {
            throw new IllegalArgumentException(what + ": " + ranksOnNode + " ranks on this node but only "
                    + gpus.getAsInt() + " GPU" + (gpus.getAsInt() == 1 ? "" : "s") + " visible (one GPU per rank)");
        }
    }
}
