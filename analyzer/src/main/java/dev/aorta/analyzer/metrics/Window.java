package dev.aorta.analyzer.metrics;

/**
 * A time window W of one rank on its timeline's clock: the whole trace, an iteration (ProfilerStep, agent
 * iteration, AORTA step) or a user range (NVTX/roctx-like).
 *
 * <p>A step is measured on the device's time when the trace links its kernels to the host calls that launched
 * them (see {@link DeviceSteps}): W then runs from the first start to the last end of the device work launched
 * during the host step, and {@code hostStartNs}/{@code hostEndNs} keep the host step's own range.
 *
 * @param label "whole", "step 12", or the range's name
 * @param step  the iteration number for {@link Kind#STEP}, else -1
 * @param basis what W's bounds were taken from
 */
public record Window(String label, Kind kind, long step, long startNs, long endNs, Basis basis, long hostStartNs,
                     long hostEndNs) {
    public enum Kind { WHOLE, STEP, RANGE }

    /** Where a window's bounds come from. */
    public enum Basis {
        /** The device work itself (the whole trace), or the marked range as it was recorded. */
        AS_MARKED("as marked"),
        /** A step's device work: first start to last end of what its host calls launched. */
        DEVICE("device"),
        /** A step that launched no device work: its host range, which then holds none of its work. */
        HOST_NO_DEVICE_WORK("host, no device work launched"),
        /** The host step range, because the trace links no kernel to a launching call (no correlation ids). */
        HOST_UNLINKED("host, kernels not linked to launches");

        private final String text;

        Basis(String text) {
            this.text = text;
        }

        /** The words the text and JSON output use. */
        public String text() {
            return text;
        }
    }

    /** A window taken as it was marked (whole trace, user range, or a step measured on its host range). */
    public Window(String label, Kind kind, long step, long startNs, long endNs) {
        this(label, kind, step, startNs, endNs, Basis.AS_MARKED, startNs, endNs);
    }

    public long lengthNs() {
        return endNs - startNs;
    }
}
