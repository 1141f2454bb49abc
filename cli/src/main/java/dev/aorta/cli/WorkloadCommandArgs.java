package dev.aorta.cli;

import dev.aorta.workloads.comm.CommsComputeOverlap;
import dev.aorta.workloads.launchoverhead.LaunchOverheadWorkload;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code aorta run comms_compute_overlap ...} and {@code aorta run launch_overhead ...} are their own commands
 * ({@code aorta overlap}, {@code aorta launch-overhead}): this turns what {@code run} parsed into that command's
 * arguments. {@code run}'s options become theirs where they mean the same; {@code --streams} becomes the overlap's
 * compute streams as AORTA counts them (stream 0 communicates, the others compute; compute_only: all compute).
 */
final class WorkloadCommandArgs {
    /** run options that the overlap command has under the same name. */
    private static final Set<String> SHARED_WITH_OVERLAP = Set.of("--iterations", "--warmup", "--sync-mode", "--device",
            "--kernel-timing", "--timing-samples", "--output", "--profile", "--profile-dir", "--verbose");
    private static final Set<String> SHARED_WITH_LAUNCH_OVERHEAD = Set.of("--device", "--output", "--verbose");
    /** run options the overlap command has under another name. */
    private static final Map<String, String> RENAMED_FOR_OVERLAP = Map.of("--dtype", "--comp-dtype");

    private WorkloadCommandArgs() {
    }

    /** The command that runs {@code workload} with options of its own, or null for a harness workload. */
    static String commandOf(String workload) {
        if (workload.equals(CommsComputeOverlap.NAME)) {
            return "overlap";
        }
        if (workload.equals(LaunchOverheadWorkload.NAME)) {
            return "launch-overhead";
        }
        return null;
    }

    /**
     * The arguments of {@code command} for what {@code run} parsed.
     *
     * @param ownArgs the arguments {@code run} did not know (the workload's own options), in order
     * @param streams {@code --streams} as given, or null
     */
    static List<String> translate(String workload, String command, ParseResult run, List<String> ownArgs,
                                  Integer streams) {
        List<String> args = new ArrayList<>();
        args.add(command);
        boolean overlap = command.equals("overlap");
        Set<String> shared = overlap ? SHARED_WITH_OVERLAP : SHARED_WITH_LAUNCH_OVERHEAD;
        for (OptionSpec o : run.matchedOptions()) {
            String name = o.longestName();
            if (name.equals("--streams") || name.equals("--profile-dir") && !run.hasMatchedOption("--profile")) {
                continue;
            }
            String target = shared.contains(name) ? name : overlap ? RENAMED_FOR_OVERLAP.get(name) : null;
            if (target == null) {
                throw new IllegalArgumentException(name + " is not an option of " + workload + " (aorta " + command
                        + " --help lists its options)");
            }
            args.add(target);
            if (o.arity().max() > 0) {
                args.add(String.join(",", o.stringValues()));
            }
        }
        if (streams != null) {
            if (overlap) {
                args.addAll(computeStreams(ownArgs, streams));
            } else if (streams != 1) {
                throw new IllegalArgumentException("--streams " + streams + " is outside the range of " + workload
                        + ": 1..1 streams (its steps are one dependent chain)");
            }
        }
        args.addAll(ownArgs);
        return args;
    }

    /** AORTA's stream layout: n streams are 1 communication + (n - 1) compute streams, or n in compute_only. */
    private static List<String> computeStreams(List<String> ownArgs, int streams) {
        if (ownArgs.stream().anyMatch(a -> a.equals("--compute-streams") || a.startsWith("--compute-streams="))) {
            throw new IllegalArgumentException("--streams and --compute-streams both set the compute streams; give one");
        }
        boolean computeOnly = false;
        for (int i = 0; i < ownArgs.size(); i++) {
            String a = ownArgs.get(i);
            if (a.equals("--mode=compute_only") || a.equals("--mode") && i + 1 < ownArgs.size()
                    && ownArgs.get(i + 1).equals("compute_only")) {
                computeOnly = true;
            }
        }
        int compute = computeOnly ? streams : streams - 1;
        if (compute < 1) {
            throw new IllegalArgumentException("--streams " + streams + " is outside the range of "
                    + CommsComputeOverlap.NAME + ": 2..32 streams (stream 0 communicates, the others compute)");
        }
        return List.of("--compute-streams", Integer.toString(compute));
    }
}
