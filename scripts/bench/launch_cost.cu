// The C floor for kernel launch cost: cuLaunchKernel of a two-parameter kernel in a loop, measured exactly
// as `aorta check` measures its own launch path (same kernel, non-blocking stream, grid 1 x block 32,
// parameters built once, host clock around the enqueue loop, device synchronized between repetitions).
// Prints the median microseconds per launch. Build: nvcc -O2 -arch=sm_90 launch_cost.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

extern "C" __global__ void launch_probe(float* p, int n) {
    if (n < 0 && threadIdx.x == 0) {
        p[0] = (float) n;
    }
}

#define CHECK(call) do { CUresult r = (call); if (r != CUDA_SUCCESS) { const char* s; cuGetErrorString(r, &s); \
    fprintf(stderr, "%s failed: %s\n", #call, s); exit(1); } } while (0)

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void* a, const void* b) {
    double x = *(const double*) a, y = *(const double*) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
    int launches = argc > 1 ? atoi(argv[1]) : 20000;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    if (cudaFree(0) != cudaSuccess) { fprintf(stderr, "no CUDA device\n"); return 1; }  // primary context
    CUfunction f;
    if (cudaGetFuncBySymbol(&f, (const void*) launch_probe) != cudaSuccess) { fprintf(stderr, "no function\n"); return 1; }
    CUstream s;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr p;
    CHECK(cuMemAlloc(&p, 4));
    int n = 1;
    void* args[] = {&p, &n};
    double* us = (double*) malloc(sizeof(double) * reps);
    for (int r = -1; r < reps; r++) {  // r = -1 is the warm-up
        double t0 = now_ns();
        for (int i = 0; i < launches; i++) {
            CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, args, NULL));
        }
        double t = now_ns() - t0;
        CHECK(cuStreamSynchronize(s));
        if (r >= 0) us[r] = t / 1e3 / launches;
    }
    qsort(us, reps, sizeof(double), cmp);
    printf("%.4f\n", us[reps / 2]);
    fprintf(stderr, "C cuLaunchKernel: median %.3f us/launch of %d x %d (min %.3f, max %.3f)\n", us[reps / 2], reps,
            launches, us[0], us[reps - 1]);
    return 0;
}
