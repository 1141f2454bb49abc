/*
 * The C floor for kernel launch cost, called by `aorta check` in its own process (through FFM) so that both
 * loops launch the same kernel on the same stream with the same parameters, interleaved: only the launch path
 * differs. Parameters are built once, as a C program would; the host clock brackets the enqueue loop.
 * Build (scripts/gpu-check.sh does):  nvcc -O2 -shared -Xcompiler -fPIC launch_loop.c -o liblaunchloop.so -lcuda
 */
#include <cuda.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Launches f (a two-parameter kernel: float*, int) `launches` times on s, grid 1 x block 32.
 * Returns the host nanoseconds of the loop, or -(CUresult) when a launch fails. */
long long aorta_c_launch_loop(CUfunction f, CUstream s, CUdeviceptr p, int n, int launches) {
    void* args[] = {&p, &n};
    double t0 = now_ns();
    for (int i = 0; i < launches; i++) {
        CUresult r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, args, NULL);
        if (r != CUDA_SUCCESS) {
            return -(long long) r;
        }
    }
    return (long long) (now_ns() - t0);
}
