package dev.aorta.launch;

import java.io.File;
import java.util.Arrays;
import java.util.Map;
import java.util.OptionalInt;

/**
 * How many GPUs the processes of this node can use, known without opening a device (so that too many ranks
 * is an error before any GPU work): the entries of {@code CUDA_VISIBLE_DEVICES} when set, else the
 * {@code /dev/nvidiaN} device files; unknown when neither tells (no NVIDIA driver here).
 */
public final class GpuCount {
    private GpuCount() {
    }

    /** The count (empty: unknown) and what it was learned from, in words for error messages. */
    record Visible(OptionalInt count, String evidence) {
    }

    public static OptionalInt visible() {
        return visible(System.getenv(), new File("/dev")).count();
    }

    static Visible visible(Map<String, String> env, File devDirectory) {
        String visible = env.get("CUDA_VISIBLE_DEVICES");
        if (visible != null) {
            int count = (int) Arrays.stream(visible.split(",")).map(String::trim)
                    .takeWhile(s -> !s.isEmpty() && !s.startsWith("-")).count();
            return new Visible(OptionalInt.of(count), visible.isBlank() ? "CUDA_VISIBLE_DEVICES is empty"
                    : "CUDA_VISIBLE_DEVICES=" + visible);
        }
        String[] nodes = devDirectory.list((dir, name) -> name.matches("nvidia\\d+"));
        return nodes == null || nodes.length == 0
                ? new Visible(OptionalInt.empty(), "no " + devDirectory + "/nvidiaN device files: no NVIDIA driver")
                : new Visible(OptionalInt.of(nodes.length), nodes.length + " " + devDirectory + "/nvidiaN device files");
    }

    /**
     * Fails before any GPU work when {@code ranksOnNode} ranks (one GPU each) do not fit the node's GPUs; passes
     * when the count is unknown (opening the GPU then says why there is none).
     */
    public static void requireFits(int ranksOnNode, String what) {
        Visible gpus = visible(System.getenv(), new File("/dev"));
        if (gpus.count().isPresent()) {
            requireGpus(ranksOnNode, what, gpus);
        }
    }

    /**
     * Fails before anything starts when the node shows fewer GPUs than {@code ranksOnNode} ranks need (one each),
     * an unknown count counting as none: a launcher must not start ranks that can only fail.
     */
    public static void requireGpusForRanks(int ranksOnNode, String what) {
        requireGpus(ranksOnNode, what, visible(System.getenv(), new File("/dev")));
    }

    static void requireGpus(int ranksOnNode, String what, Visible gpus) {
        int count = gpus.count().orElse(0);
        if (ranksOnNode > count) {
            throw new IllegalArgumentException(what + ": " + (ranksOnNode == 1 ? "1 rank on this node needs 1 GPU"
                    : ranksOnNode + " ranks on this node need " + ranksOnNode + " GPUs (one each)") + ", but " + count
                    + (count == 1 ? " GPU is" : " GPUs are") + " visible (" + gpus.evidence() + ")");
        }
    }
}
