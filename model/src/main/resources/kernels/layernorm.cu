// Layer norm over the last dimension in fp32: one warp per row (four rows per 128-thread block), mean and
// 1/std kept per row for the backward pass. The parameter gradients are a separate column-wise pass, so
// their sums have a fixed order (deterministic) without atomics.

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) {
        v += __shfl_xor_sync(0xffffffffu, v, o);
    }
    return v;
}

extern "C" __global__ void layernorm_forward(const float* x, const float* gamma, const float* beta, float* y,
                                             float* mean, float* rstd, int rows, int cols, float eps) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    const float* xr = x + (long long) row * cols;
    float s = 0.0f;
    for (int i = lane; i < cols; i += 32) {
        s += xr[i];
    }
    float m = warp_sum(s) / cols;
    // two passes over the row (it is in L1 by now): the variance of x - m has no cancellation
    float v = 0.0f;
    for (int i = lane; i < cols; i += 32) {
        float d = xr[i] - m;
        v += d * d;
    }
    float r = 1.0f / sqrtf(warp_sum(v) / cols + eps);
    float* yr = y + (long long) row * cols;
    for (int i = lane; i < cols; i += 32) {
        yr[i] = (xr[i] - m) * r * gamma[i] + beta[i];
    }
    if (lane == 0) {
        mean[row] = m;
        rstd[row] = r;
    }
}

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * gamma. Overwrites dx.
extern "C" __global__ void layernorm_backward(const float* dy, const float* x, const float* gamma, const float* mean,
                                              const float* rstd, float* dx, int rows, int cols) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    const float* dyr = dy + (long long) row * cols;
    const float* xr = x + (long long) row * cols;
    float m = mean[row];
    float r = rstd[row];
    float sg = 0.0f;
    float sgx = 0.0f;
    for (int i = lane; i < cols; i += 32) {
        float g = dyr[i] * gamma[i];
        sg += g;
        sgx += g * (xr[i] - m) * r;
    }
    float mg = warp_sum(sg) / cols;
    float mgx = warp_sum(sgx) / cols;
    float* dxr = dx + (long long) row * cols;
    for (int i = lane; i < cols; i += 32) {
        float xhat = (xr[i] - m) * r;
        dxr[i] = r * (dyr[i] * gamma[i] - mg - xhat * mgx);
    }
}

// dgamma[c] += sum_r dy * xhat, dbeta[c] += sum_r dy. Blocks of 1024 threads own 32 columns: thread
// (ty, tx) = (threadIdx.x / 32, threadIdx.x % 32) sums rows ty, ty + 32, ... of column 32 * blockIdx.x + tx (a
// warp reads 32 neighbouring columns of one row), then the 32 partial sums of a column are added in a fixed
// order (deterministic, no atomics).
extern "C" __global__ void layernorm_param_grad(const float* dy, const float* x, const float* mean, const float* rstd,
                                                float* dgamma, float* dbeta, int rows, int cols) {
    __shared__ float pg[32][33];
    __shared__ float pb[32][33];
    int tx = threadIdx.x % 32;
    int ty = threadIdx.x / 32;
    int c = blockIdx.x * 32 + tx;
    float sg = 0.0f;
    float sb = 0.0f;
    if (c < cols) {
        for (int r = ty; r < rows; r += 32) {
            long long i = (long long) r * cols + c;
            float d = dy[i];
            sg += d * (x[i] - mean[r]) * rstd[r];
            sb += d;
        }
    }
    pg[ty][tx] = sg;
    pb[ty][tx] = sb;
    __syncthreads();
    if (ty == 0 && c < cols) {
        float g = 0.0f;
        float b = 0.0f;
        for (int k = 0; k < 32; k++) {
            g += pg[k][tx];
            b += pb[k][tx];
        }
        dgamma[c] += g;
        dbeta[c] += b;
    }
}
