package example.fakegpu;

/** A method shaped like cuLaunchKernel, for weaving advice in-process (fault-injection tests). */
public final class LaunchShapedTarget {
    private LaunchShapedTarget() {
    }

    public static int cuLaunchKernel(Object f, int gx, int gy, int gz, int bx, int by, int bz, int shm,
                                     Object stream, Object params, Object extra) {
        if (gx < 0) {
            throw new IllegalArgumentException("the application's own failure");
        }
        return 42;
    }
}
