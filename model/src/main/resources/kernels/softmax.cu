// Softmax over the last dimension, one warp per row, fp32; the backward pass works from the output.

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) {
        v += __shfl_xor_sync(0xffffffffu, v, o);
    }
    return v;
}

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    }
    return v;
}

extern "C" __global__ void softmax_forward(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    const float* xr = x + (long long) row * cols;
    float* yr = y + (long long) row * cols;
    float m = __int_as_float(0xff800000); // -inf (NVRTC has no math.h macros)
    for (int i = lane; i < cols; i += 32) {
        m = fmaxf(m, xr[i]);
    }
    m = warp_max(m);
    float s = 0.0f;
    for (int i = lane; i < cols; i += 32) {
        s += expf(xr[i] - m);
    }
    float inv = 1.0f / warp_sum(s);
    for (int i = lane; i < cols; i += 32) {
        yr[i] = expf(xr[i] - m) * inv;
    }
}

// dx = y * (dy - sum(dy * y)) per row.
extern "C" __global__ void softmax_backward(const float* y, const float* dy, float* dx, int rows, int cols) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    const float* yr = y + (long long) row * cols;
    const float* dyr = dy + (long long) row * cols;
    float dot = 0.0f;
    for (int i = lane; i < cols; i += 32) {
        dot += dyr[i] * yr[i];
    }
    dot = warp_sum(dot);
    float* dxr = dx + (long long) row * cols;
    for (int i = lane; i < cols; i += 32) {
        dxr[i] = yr[i] * (dyr[i] - dot);
    }
}
