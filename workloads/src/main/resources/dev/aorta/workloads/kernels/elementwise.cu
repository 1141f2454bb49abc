// Small elementwise kernels for the hardware-queue workloads (hetero_kernels' small ops,
// tiny_kernel_stress' ops). 1-D, in place where possible so that a workload needs one buffer per stream.
// Compiled at run time with NVRTC; no headers, so they also compile with plain nvcc -cubin.

extern "C" __global__ void vec_add(float* x, const float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] + y[i];
}

extern "C" __global__ void vec_mul(float* x, const float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * y[i];
}

extern "C" __global__ void vec_relu(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

// Scales and shifts, keeping values bounded so that repeated iterations never overflow.
extern "C" __global__ void vec_scale(float* x, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = tanhf(a * x[i] + b);
}
