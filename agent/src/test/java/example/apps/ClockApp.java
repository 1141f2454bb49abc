package example.apps;

import dev.aorta.api.Aorta;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuStreamCreate;

/**
 * Known host times for the agent's clock: prints {@code System.nanoTime()} before and after the work and
 * right before and right after each {@code Aorta.step}; five iterations of 40 ms each (a hundred launches,
 * then a sleep), long enough for the TSC clock to take several anchors.
 */
public final class ClockApp {
    public static final int STEPS = 5;
    public static final long STEP_MS = 40;

    public static void main(String[] args) throws Exception {
        System.out.println("T0 " + System.nanoTime());
        CUstream s = new CUstream();
        cuStreamCreate(s, 0);
        CUfunction f = new CUfunction();
        cuModuleGetFunction(f, new CUmodule(), "scale");
        long[] begins = new long[STEPS];
        long[] returns = new long[STEPS];
        for (int step = 0; step < STEPS; step++) {
            long begin = System.nanoTime();
            begins[step] = begin;
            Aorta.step(step);
            returns[step] = System.nanoTime();
            for (int i = 0; i < 100; i++) {
                cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, null, null);
            }
            while (System.nanoTime() - begin < STEP_MS * 1_000_000L) {
                Thread.sleep(1);
            }
        }
        Aorta.finish();
        System.out.println("T1 " + System.nanoTime());
        for (int step = 0; step < STEPS; step++) {
            System.out.println("STEP " + step + " " + begins[step]);
            System.out.println("RETURNED " + step + " " + returns[step]);
        }
        Thread.sleep(100);
    }
}
