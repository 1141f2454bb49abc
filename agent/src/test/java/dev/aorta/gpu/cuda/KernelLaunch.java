package dev.aorta.gpu.cuda;

import example.fakegpu.FakeGpu;

/** Test double of the aorta-gpu FFM launch path: the real class's fields, a launch that runs gridX µs. */
public final class KernelLaunch {
    private final String name;
    private final long function;
    private final int gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes;
    private long stream;

    public KernelLaunch(String name, long function, int gridX, int blockX, int sharedBytes, Stream stream) {
        this.name = name;
        this.function = function;
        this.gridX = gridX;
        this.gridY = 1;
        this.gridZ = 1;
        this.blockX = blockX;
        this.blockY = 1;
        this.blockZ = 1;
        this.sharedBytes = sharedBytes;
        this.stream = stream.address();
    }

    public void launch() {
        FakeGpu.run("KERNEL", name, stream, gridX * 1000L, 0, gridX, blockX, "cuLaunchKernel");
    }
}
