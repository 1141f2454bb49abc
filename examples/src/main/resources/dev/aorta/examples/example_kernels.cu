// Kernels of the agent's GPU example and launch-overhead programs (dev.aorta.examples).
// Regenerate the PTX next to this file with:
//   nvcc -arch=sm_90 -ptx example_kernels.cu -o example_kernels.ptx
extern "C" __global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

extern "C" __global__ void add(float *y, const float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += x[i];
}

// The launch-overhead kernel: tiny, with parameters, so that host-side launch cost dominates.
extern "C" __global__ void increment(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}
