package dev.aorta.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.aorta.workloads.comm.CommsComputeOverlap;
import dev.aorta.workloads.comm.OverlapAnalysis;
import dev.aorta.workloads.comm.OverlapConfig;
import dev.aorta.workloads.comm.OverlapMode;
import dev.aorta.workloads.comm.OverlapOutcome;
import dev.aorta.workloads.dist.DistributedEnvironment;
import dev.aorta.workloads.harness.RunResult;
import dev.aorta.workloads.result.ResultJson;

import java.io.PrintStream;
import java.time.Instant;
import java.util.Locale;

import static dev.aorta.cli.RunReport.fmt;
import static dev.aorta.cli.RunReport.line;

/** The human report and the result JSON ({@code aorta.overlap/1}) of comms_compute_overlap. */
final class OverlapReport {
    static final String SCHEMA = "aorta.overlap/1";

    private OverlapReport() {
    }

    static void print(OverlapOutcome o, PrintStream out) {
        OverlapConfig c = o.config();
        OverlapAnalysis a = o.mainAnalysis();
        RunResult main = o.main();
        out.println(CommsComputeOverlap.NAME + " " + c.mode().label() + " on " + main.device().name()
                + " (device " + main.device().ordinal() + "), rank " + o.environment().rank() + " of "
                + o.environment().worldSize());
        out.println("  options: " + options(o));
        out.println("  timing: " + main.kernelTiming().source().label() + ", " + a.iterations() + " iterations captured ("
                + a.computeActivities() + " compute and " + a.commActivities() + " communication kernels)");
        if (c.mode().communicates()) {
            line(out, "communication", communicationText(o), c.real()
                    ? "NCCL " + c.collective().label() + " across the " + o.groupSize() + (o.groupSize() == 1 ? " rank" : " ranks")
                    + " of group " + o.members()
                    : "SIMULATED: no peers in one process, so a device copy of the same size stands in for each "
                    + c.collective().label() + "; its bandwidth is the device's copy bandwidth, busbw is not defined");
            line(out, "collective time", fmt(a.collectiveTimeNs() / 1e3) + " us",
                    "mean device time of one collective: its kernels' durations summed per iteration / --num-coll");
            line(out, "algbw", fmt(a.algbwGbps(c.commBytes())) + " GB/s",
                    "size / collective time (size " + OverlapConfig.bytesText(c.commBytes()) + ", 1 GB = 10^9 B; nccl-tests)");
            if (c.real()) {
                line(out, "busbw", fmt(a.algbwGbps(c.commBytes()) * o.busFactor()) + " GB/s",
                        "algbw x " + busFormula(o) + " = " + fmt(o.busFactor()) + " (nccl-tests' bus bandwidth, n = "
                                + o.groupSize() + ")");
            }
            if (c.mode() == OverlapMode.COMMS_ONLY) {
                line(out, "loop algbw", fmt(o.loopAlgbwGbps()) + " GB/s" + (c.real()
                                ? ", busbw " + fmt(o.loopAlgbwGbps() * o.busFactor()) + " GB/s" : ""),
                        "size x collectives x iterations / device time of all measured iterations (back to back with "
                                + "--async-op and --sync-mode end_only: how nccl-tests and torch benchmarks time)");
            }
        }
        if (c.mode().computes()) {
            line(out, "compute", fmt(c.flopsPerIteration() / a.computeNs() / 1e3) + " TFLOP/s",
                    "GEMM flops per iteration (2*M*N*K x " + c.gemmsPerStream() + " x " + c.computeStreams()
                            + " streams) / compute time");
            line(out, "throughput", fmt(main.throughput().value()) + " " + main.throughput().unit(),
                    "the same flops over the iterations' device time (compute and waiting included)");
        }
        line(out, "iteration", fmt(a.windowNs() / 1e6) + " ms", "W: first kernel start to last kernel end, per iteration");
        line(out, "compute time", ms(a.computeNs()), "|C|: union of the GEMM kernels' device intervals");
        line(out, "comm time", ms(a.commNs()), "|M|: union of the communication kernels' device intervals");
        line(out, "overlap", ms(a.overlapNs()), "|C ∩ M|: communication running while a GEMM runs");
        line(out, "exposed comm", ms(a.exposedCommNs()) + " (exposed_comm_ns " + Math.round(a.exposedCommNs()) + ")",
                "|M| - overlap: communication with no GEMM running beside it");
        line(out, "comm_overlap_pct", pct(a.commOverlapPct()), "100 x overlap / |M| (pooled over iterations): share of "
                + "communication hidden behind compute");
        line(out, "aorta_overlap_ratio", a.aortaOverlapRatio() == null ? "n/a" : fmt(a.aortaOverlapRatio()), "overlap / |C| (AORTA's ratio, from device timestamps)");
        if (o.computeReference() != null) {
            OverlapAnalysis ref = o.analysis(o.computeReference());
            line(out, "compute slowdown", fmt(o.computeSlowdown()) + "x (" + ms(a.computeNs()) + " vs " + ms(ref.computeNs())
                    + ")", "compute time with communication / compute_only's (same GEMMs and streams, run right after)");
        }
        if (o.commReference() != null) {
            OverlapAnalysis ref = o.analysis(o.commReference());
            line(out, "comm slowdown", fmt(o.commSlowdown()) + "x (" + fmt(a.collectiveTimeNs() / 1e3) + " vs "
                    + fmt(ref.collectiveTimeNs() / 1e3) + " us)", "collective time with compute / comms_only's");
        }
        if (main.correctness().checked()) {
            line(out, "correctness", main.correctness().problem() == null ? "ok" : "WRONG: " + main.correctness().problem(),
                    o.correctnessRule() + " (fp32 check after the measured iterations)");
        }
    }

    private static String options(OverlapOutcome o) {
        OverlapConfig c = o.config();
        RunResult m = o.main();
        return String.format(Locale.ROOT, "mm %s, %d GEMMs x %d compute streams, %s %s %s x %d per iteration, %s, "
                        + "async-op %s, process groups %s, iterations %d, warmup %d, sync %s",
                c.gemm().describe(), c.gemmsPerStream(), c.computeStreams(), c.collective().label(),
                c.commDtype().label(), OverlapConfig.bytesText(c.commBytes()), c.collectives(),
                c.real() ? "backend " + o.backend() : "simulated collectives", c.asyncOp(),
                o.processGroups() == null ? "none" : o.processGroups(), m.options().iterations(), m.options().warmup(),
                m.options().syncMode().label());
    }

    private static String communicationText(OverlapOutcome o) {
        return o.config().real() ? "nccl, group " + o.members() : "simulated (device copy)";
    }

    private static String busFormula(OverlapOutcome o) {
        return switch (o.config().collective()) {
            case ALL_REDUCE -> "2(n-1)/n";
            case ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL -> "(n-1)/n";
            case BROADCAST -> "1";
        };
    }

    private static String ms(double ns) {
        return fmt(ns / 1e6) + " ms";
    }

    /** A percentage; n/a where it is undefined (no communication: docs/metrics.md). */
    private static String pct(Double v) {
        return v == null ? "n/a" : String.format(Locale.ROOT, "%.1f %%", v);
    }

    static ObjectNode toJson(OverlapOutcome o) {
        OverlapConfig c = o.config();
        OverlapAnalysis a = o.mainAnalysis();
        ObjectNode root = ResultJson.MAPPER.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("timestamp", Instant.now().toString());
        root.put("workload_name", CommsComputeOverlap.NAME);
        ObjectNode cfg = root.putObject("config");
        cfg.put("mode", c.mode().label());
        cfg.putArray("mm_dim").add(c.gemm().m()).add(c.gemm().n()).add(c.gemm().k());
        cfg.put("num_compute", c.gemmsPerStream());
        cfg.put("comp_dtype", c.gemm().dtype().label());
        cfg.put("comm_size_bytes", c.commBytes());
        cfg.put("num_coll", c.collectives());
        cfg.put("comm_dtype", c.commDtype().label());
        cfg.put("compute_streams", c.computeStreams());
        cfg.put("collective", c.collective().label());
        cfg.put("real_collectives", c.real());
        cfg.put("async_op", c.asyncOp());
        cfg.put("backend", o.backend());
        cfg.put("process_groups", o.processGroups());
        cfg.put("iterations", o.main().options().iterations());
        cfg.put("warmup", o.main().options().warmup());
        cfg.put("sync_mode", o.main().options().syncMode().label());
        DistributedEnvironment env = o.environment();
        ObjectNode dist = root.putObject("distributed");
        dist.put("launcher", env.launcher().label());
        dist.put("rank", env.rank());
        dist.put("world_size", env.worldSize());
        dist.put("local_rank", env.localRank());
        dist.put("local_world_size", env.localWorldSize());
        dist.put("device", o.main().device().ordinal());
        o.members().forEach(dist.putArray("group_ranks")::add);
        dist.put("group_size", o.groupSize());
        ObjectNode comm = root.putObject("communication");
        comm.put("kind", c.real() ? "nccl" : "simulated_copy");
        if (!c.real()) {
            comm.put("note", "one process without --real-collectives: a device copy of the same size stands in for each "
                    + c.collective().label() + "; busbw is not defined");
        }
        if (c.mode().communicates()) {
            comm.put("collective", c.collective().label());
            comm.put("bytes", c.commBytes());
            comm.put("dtype", c.commDtype().label());
            comm.put("ranks", o.groupSize());
            comm.put("collective_time_us", a.collectiveTimeNs() / 1e3);
            comm.put("algbw_gbps", a.algbwGbps(c.commBytes()));
            putNumberOrNull(comm, "busbw_factor", o.busFactor());
            putNumberOrNull(comm, "busbw_gbps", a.algbwGbps(c.commBytes()) * o.busFactor());
            if (c.mode() == OverlapMode.COMMS_ONLY) {
                comm.put("loop_algbw_gbps", o.loopAlgbwGbps());
                putNumberOrNull(comm, "loop_busbw_gbps", o.loopAlgbwGbps() * o.busFactor());
            }
            comm.put("definition", "collective_time = sum of communication kernel durations / (iterations x num_coll); "
                    + "algbw = bytes / collective_time (GB = 1e9 B); busbw = algbw x busbw_factor (nccl-tests); "
                    + "loop_* = bytes x num_coll x iterations / device time of all measured iterations");
        }
        if (c.mode().computes()) {
            ObjectNode comp = root.putObject("compute");
            comp.put("flops_per_iteration", c.flopsPerIteration());
            comp.put("tflops", c.flopsPerIteration() / a.computeNs() / 1e3);
            comp.put("definition", "flops_per_iteration / compute_ns (|C| per iteration)");
        }
        ObjectNode ov = root.putObject("overlap");
        ov.put("iterations", a.iterations());
        ov.put("window_ns", Math.round(a.windowNs()));
        ov.put("compute_ns", Math.round(a.computeNs()));
        ov.put("comm_ns", Math.round(a.commNs()));
        ov.put("overlap_ns", Math.round(a.overlapNs()));
        ov.put("exposed_comm_ns", Math.round(a.exposedCommNs()));
        ov.put("idle_ns", Math.round(a.idleNs()));
        ov.put("comm_overlap_pct", a.commOverlapPct());
        ov.put("aorta_overlap_ratio", a.aortaOverlapRatio());
        ov.put("definition", "docs/metrics.md, per iteration (ns: means per iteration; pct and ratio pooled): "
                + "comm_overlap_pct = 100 overlap/comm, exposed_comm = comm - overlap, aorta_overlap_ratio = overlap/compute");
        putNumberOrNull(root, "compute_slowdown", o.computeSlowdown());
        putNumberOrNull(root, "comm_slowdown", o.commSlowdown());
        ObjectNode corr = root.putObject("correctness");
        corr.put("checked", o.main().correctness().checked());
        corr.put("rule", o.correctnessRule());
        corr.put("problem", o.main().correctness().problem());
        ObjectNode runs = root.putObject("runs");
        runs.set(c.mode().label(), ResultJson.toJson(o.main()));
        if (o.computeReference() != null) {
            runs.set(OverlapMode.COMPUTE_ONLY.label(), ResultJson.toJson(o.computeReference()));
        }
        if (o.commReference() != null) {
            runs.set(OverlapMode.COMMS_ONLY.label(), ResultJson.toJson(o.commReference()));
        }
        return root;
    }

    private static void putNumberOrNull(ObjectNode node, String key, double v) {
        if (Double.isFinite(v)) {
            node.put(key, v);
        } else {
            node.putNull(key);
        }
    }
}
