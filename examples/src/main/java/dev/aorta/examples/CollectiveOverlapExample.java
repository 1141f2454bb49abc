package dev.aorta.examples;

import dev.aorta.api.Aorta;
import dev.aorta.gpu.blas.Cublas;
import dev.aorta.gpu.blas.GemmPrecision;
import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.CudaModule;
import dev.aorta.gpu.cuda.DeviceBuffer;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.gpu.nccl.Nccl;
import dev.aorta.gpu.nccl.NcclComm;
import dev.aorta.gpu.nccl.NcclDataType;
import dev.aorta.gpu.nccl.NcclRedOp;
import dev.aorta.gpu.nccl.NcclUniqueId;
import dev.aorta.gpu.nvrtc.Nvrtc;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.CRC32;

/**
 * The collective-binding example: a training-step shape that issues an all-reduce on the compute stream
 * between GEMMs (as naive data-parallel code does), so nothing overlaps it unless the agent's
 * {@code bind-collectives} moves it to a communication stream. Each iteration: 2 GEMMs, an all-reduce of the
 * "gradient" buffer (out of place), 2 more GEMMs that do not touch it, a stream synchronize. Prints
 * {@code RESULT crc=...} over the all-reduce output and the last GEMM output, which must be the same with
 * and without binding.
 *
 * <p>Ranks: {@code RANK}, {@code WORLD_SIZE}, {@code LOCAL_RANK} (GPU) from the environment; rank 0 writes
 * the NCCL id to the file named by {@code AORTA_EXAMPLE_ID_FILE} (atomically), the others wait for it.
 * Usage: {@code java -cp ... dev.aorta.examples.CollectiveOverlapExample [iterations] [gemmSize] [allReduceMiB]}.
 */
public final class CollectiveOverlapExample {

    public static void main(String[] args) throws Exception {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int size = args.length > 1 ? Integer.parseInt(args[1]) : 4096;
        long reduceBytes = (args.length > 2 ? Long.parseLong(args[2]) : 128) << 20;
        int rank = Integer.parseInt(System.getenv().getOrDefault("RANK", "0"));
        int world = Integer.parseInt(System.getenv().getOrDefault("WORLD_SIZE", "1"));
        int gpu = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", String.valueOf(rank)));
        Path idFile = Path.of(System.getenv().getOrDefault("AORTA_EXAMPLE_ID_FILE", "nccl-id.txt"));

        try (CudaDevice device = CudaDevice.open(gpu)) {
            Nccl nccl = Nccl.get();
            NcclUniqueId id = exchangeId(nccl, rank, idFile);
            Stream compute = device.createStream(0, true);
            CudaModule fills = device.loadModule(Nvrtc.get().compile(
                    Nvrtc.resource(CollectiveOverlapExample.class, "/kernels/fill.cu"), "fill.cu", device.info().arch()));
            long elements = (long) size * size;
            long reduceCount = reduceBytes / 2;
            try (NcclComm comm = nccl.initRank(id, world, rank); Cublas blas = new Cublas(device, compute);
                 DeviceBuffer a = device.allocate(elements * 2); DeviceBuffer b = device.allocate(elements * 2);
                 DeviceBuffer c = device.allocate(elements * 2); DeviceBuffer d = device.allocate(elements * 2);
                 DeviceBuffer grad = device.allocate(reduceCount * 2); DeviceBuffer reduced = device.allocate(reduceCount * 2)) {
                fill(fills, compute, a, elements, 1);
                fill(fills, compute, b, elements, 2);
                fill(fills, compute, grad, reduceCount, 100 + rank);
                compute.synchronize();
                for (int i = 0; i < iterations; i++) {
                    Aorta.step(i);
                    blas.gemm(GemmPrecision.BF16, size, size, size, a, b, c);
                    blas.gemm(GemmPrecision.BF16, size, size, size, c, b, d);
                    comm.allReduce(grad.address(), reduced.address(), reduceCount, NcclDataType.BFLOAT16, NcclRedOp.SUM,
                            compute);
                    blas.gemm(GemmPrecision.BF16, size, size, size, a, d, c);
                    blas.gemm(GemmPrecision.BF16, size, size, size, c, b, d);
                    compute.synchronize();
                }
                Aorta.finish();
                CRC32 crc = new CRC32();
                crc.update(read(reduced, reduceCount * 2));
                crc.update(read(d, elements * 2));
                System.out.printf("RESULT rank=%d crc=%08x%n", rank, crc.getValue());
            }
        }
    }

    private static NcclUniqueId exchangeId(Nccl nccl, int rank, Path idFile) throws Exception {
        if (rank == 0) {
            NcclUniqueId id = nccl.newUniqueId();
            Path tmp = Files.createTempFile(idFile.toAbsolutePath().getParent(), "nccl-id", ".tmp");
            Files.writeString(tmp, id.toBase64());
            Files.move(tmp, idFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return id;
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!Files.exists(idFile)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("rank " + rank + ": no NCCL id in " + idFile + " after 60 s");
            }
            Thread.sleep(50);
        }
        return NcclUniqueId.fromBase64(Files.readString(idFile).trim());
    }

    private static void fill(CudaModule module, Stream s, DeviceBuffer buf, long count, int seed) {
        module.kernel("fill_uniform_bf16").prepare(1024, 256, s, 3).pointer(0, buf).longArg(1, count).intArg(2, seed)
                .launch();
    }

    private static ByteBuffer read(DeviceBuffer buf, long bytes) {
        short[] host = new short[(int) (bytes / 2)];
        buf.copyTo(host);
        ByteBuffer out = ByteBuffer.allocate(host.length * 2);
        out.asShortBuffer().put(host);
        return out;
    }
}
