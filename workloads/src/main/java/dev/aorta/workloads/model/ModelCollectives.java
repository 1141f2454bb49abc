package dev.aorta.workloads.model;

import dev.aorta.gpu.cuda.CudaModule;
import dev.aorta.gpu.nvrtc.Nvrtc;
import dev.aorta.model.Tensor;
import dev.aorta.workloads.dist.CommunicatorBootstrap;
import dev.aorta.workloads.dist.DistributedEnvironment;
import dev.aorta.workloads.kernels.WorkloadKernels;
import dev.aorta.workloads.session.CommDType;
import dev.aorta.workloads.session.Communicator;
import dev.aorta.workloads.session.GpuBuffer;
import dev.aorta.workloads.session.GpuStream;
import dev.aorta.workloads.spi.WorkloadContext;

import java.time.Duration;

/**
 * The collectives of the distributed model workloads (fsdp_tp, moe, activation_ckpt, grad_accum): NCCL through the
 * session's {@link Communicator} when the world (aorta launch, torchrun, srun) has more than one rank, else
 * simulated by comm.cu's {@code simulated_collective_copy} kernel, the stand-in comms_compute_overlap uses: one
 * device copy of the bytes each rank receives. With one rank every collective's result is its input, so the
 * simulated copy computes what NCCL would, and the workloads' checks hold either way.
 */
final class ModelCollectives implements AutoCloseable {
    private static final int BLOCK = 256;

    private final Communicator world;
    private final CudaModule copyKernels;
    private final ModelRuntime rt;

    private ModelCollectives(ModelRuntime rt, Communicator world, CudaModule copyKernels) {
        this.rt = rt;
        this.world = world;
        this.copyKernels = copyKernels;
    }

    static ModelCollectives open(ModelRuntime rt, WorkloadContext ctx) {
        DistributedEnvironment env = DistributedEnvironment.current();
        if (env.worldSize() > 1) {
            Communicator world = CommunicatorBootstrap.open(ctx.gpu(), env, null, Duration.ofMinutes(2),
                    System.err::println).world();
            return new ModelCollectives(rt, world, null);
        }
        CudaModule module = rt.device().loadModule(Nvrtc.get().compile(WorkloadKernels.source("comm.cu"), "comm.cu",
                rt.device().info().arch()));
        return new ModelCollectives(rt, null, module);
    }

    int worldSize() {
        return world == null ? 1 : world.size();
    }

    int rank() {
        return world == null ? 0 : world.rank();
    }

    /** How the collectives ran, for the result ({@code workload_results.collectives}). */
    String kind() {
        return world == null ? "simulated (one rank: simulated_collective_copy device copies of the received bytes)"
                : "nccl over " + world.size() + " ranks";
    }

    /** recv = Σ over ranks of send, fp32. */
    void allReduce(Tensor send, Tensor recv, GpuStream s) {
        if (world == null) {
            copy(send, recv, s);
        } else {
            world.allReduce(buffer(send), buffer(recv), send.numel(), CommDType.FP32, s);
        }
    }

    /** full = the shards of every rank in rank order; shard has full.numel() / worldSize() elements. */
    void allGather(Tensor shard, Tensor full, GpuStream s) {
        if (world == null) {
            copy(shard, full, s);
        } else {
            world.allGather(buffer(shard), buffer(full), shard.numel(), CommDType.FP32, s);
        }
    }

    /** Block p of send goes to rank p, which receives it at block rank(). */
    void allToAll(Tensor send, Tensor recv, GpuStream s) {
        if (world == null) {
            copy(send, recv, s);
        } else {
            world.allToAll(buffer(send), buffer(recv), send.numel() / world.size(), CommDType.FP32, s);
        }
    }

    /** The collectives move whole 16-byte units in the simulated copy: a size that is not is an error naming it. */
    static void requireUnits(String workload, String what, long floats) {
        if (floats % 4 != 0) {
            throw new IllegalArgumentException(workload + ": " + what + " has " + floats
                    + " floats; the collectives move multiples of 4 floats (16 bytes), choose sizes divisible by 4");
        }
    }

    /** One prepared launch per (source, destination, stream), re-issued: no parameter packing in the measured loop. */
    private record CopyKey(long src, long dst, long bytes, GpuStream stream) {
    }

    private final java.util.Map<CopyKey, dev.aorta.gpu.cuda.KernelLaunch> copies = new java.util.HashMap<>();

    private void copy(Tensor src, Tensor dst, GpuStream s) {
        copies.computeIfAbsent(new CopyKey(src.address(), dst.address(), dst.bytes(), s), key -> {
            long units = dst.bytes() / 16;
            int grid = (int) Math.max(1, Math.min(4096, (units + BLOCK - 1) / BLOCK));
            return copyKernels.kernel("simulated_collective_copy").prepare(grid, BLOCK, rt.stream(s), 3)
                    .pointer(0, dst.address()).pointer(1, src.address()).longArg(2, units);
        }).launch();
    }

    private static GpuBuffer buffer(Tensor t) {
        return new GpuBuffer() {
            @Override
            public long address() {
                return t.address();
            }

            @Override
            public long bytes() {
                return t.bytes();
            }

            @Override
            public void close() {
                // the tensor owns the memory
            }
        };
    }

    @Override
    public void close() {
        if (copyKernels != null) {
            copyKernels.close();
        }
        if (world != null) {
            world.close();
        }
    }
}
