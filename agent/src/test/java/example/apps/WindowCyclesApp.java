package example.apps;

import dev.aorta.api.Aorta;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

/**
 * Iterations of hot launches, marked with {@code Aorta.step}, with a full collection every 50 (as a long run's
 * collections would unload what is dead), then the metaspace in use: run under a schedule of many windows with
 * {@code between-windows=off}, what weaving the advice in and out leaves behind. Argument: iterations.
 */
public final class WindowCyclesApp {
    public static void main(String[] args) throws Exception {
        int iterations = Integer.parseInt(args[0]);
        CUstream s = new CUstream();
        cuStreamCreate(s, 0);
        CUfunction f = new CUfunction();
        cuModuleGetFunction(f, new CUmodule(), "spin");
        for (long step = 0; step < iterations; step++) {
            Aorta.step(step);
            for (int i = 0; i < 2000; i++) {
                cuLaunchKernel(f, 10, 1, 1, 32, 1, 1, 0, s, null, null);
            }
            cuStreamSynchronize(s);
            if (step % 50 == 49) {
                System.gc();
            }
        }
        Aorta.finish();
        System.gc();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getName().equals("Metaspace")) {
                System.out.println("METASPACE " + p.getUsage().getUsed());
            }
        }
    }
}
