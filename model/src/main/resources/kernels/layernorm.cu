// Layer norm over the last dimension in fp32: one warp per row (four rows per 128-thread block), mean and
// 1/std kept per row for the backward pass. The parameter gradients are a separate column-wise pass, so
// their sums have a fixed order (deterministic) without atomics.

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) {
        v += __shfl_xor_sync(0xffffffffu, v, o);
    }
    return v;
}

// Rows up to 32 lanes x MAX_VEC float4 long are held in registers: one read of the row, 16-byte accesses.
#define MAX_VEC 8

#include "round16.cuh"

// y = (s - mean) * rstd * gamma + beta over each row of s, where s = x, or s = x + residual when residual is
// not null (the residual add of a post-norm block, fused: s is also written to sum, which the backward pass
// needs). mean and rstd are kept per row. Where ylow is given, y rounded to 16 bits (half = 1: fp16, else
// bf16) is also written there: the operand of the autocast GEMM that reads y next, without a cast launch.
// One warp per row. With cols a multiple of 4 and at most 1024 (and 16-byte aligned rows) the row stays in
// registers (one read, two passes over registers: the variance of s - mean has no cancellation); otherwise
// three passes over the row from memory (it is in L1 after the first).
extern "C" __global__ void layernorm_forward(const float* x, const float* residual, float* sum, const float* gamma,
                                             const float* beta, float* y, float* mean, float* rstd, int rows,
                                             int cols, float eps, unsigned short* ylow, int half) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    long long base = (long long) row * cols;
    float m;
    float r;
    bool aligned = (((unsigned long long) x | (unsigned long long) residual | (unsigned long long) sum
                     | (unsigned long long) y | (unsigned long long) gamma | (unsigned long long) beta) & 15) == 0
                   && ((unsigned long long) ylow & 7) == 0;
    if (aligned && (cols & 3) == 0 && cols <= 128 * MAX_VEC) {
        int nv = cols / 4;
        const float4* x4 = reinterpret_cast<const float4*>(x + base);
        float4 v[MAX_VEC];
        float s = 0.0f;
#pragma unroll
        for (int k = 0; k < MAX_VEC; k++) {
            int c = lane + 32 * k;
            if (c < nv) {
                v[k] = x4[c];
                if (residual != nullptr) {
                    float4 b = reinterpret_cast<const float4*>(residual + base)[c];
                    v[k] = make_float4(v[k].x + b.x, v[k].y + b.y, v[k].z + b.z, v[k].w + b.w);
                    reinterpret_cast<float4*>(sum + base)[c] = v[k];
                }
                s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
            }
        }
        m = warp_sum(s) / cols;
        float var = 0.0f;
#pragma unroll
        for (int k = 0; k < MAX_VEC; k++) {
            if (lane + 32 * k < nv) {
                float a = v[k].x - m, b = v[k].y - m, c = v[k].z - m, d = v[k].w - m;
                var += (a * a + b * b) + (c * c + d * d);
            }
        }
        r = 1.0f / sqrtf(warp_sum(var) / cols + eps);
#pragma unroll
        for (int k = 0; k < MAX_VEC; k++) {
            int c = lane + 32 * k;
            if (c < nv) {
                float4 g = reinterpret_cast<const float4*>(gamma)[c];
                float4 b = reinterpret_cast<const float4*>(beta)[c];
                float4 o = make_float4((v[k].x - m) * r * g.x + b.x, (v[k].y - m) * r * g.y + b.y,
                                       (v[k].z - m) * r * g.z + b.z, (v[k].w - m) * r * g.w + b.w);
                reinterpret_cast<float4*>(y + base)[c] = o;
                if (ylow != nullptr) {
                    reinterpret_cast<ushort4*>(ylow + base)[c] = make_ushort4(round16(o.x, half), round16(o.y, half),
                                                                              round16(o.z, half), round16(o.w, half));
                }
            }
        }
    } else {
        const float* xr = x + base;
        if (residual != nullptr) {
            for (int i = lane; i < cols; i += 32) {
                sum[base + i] = xr[i] + residual[base + i];
            }
            __syncwarp();
            xr = sum + base;
        }
        float s = 0.0f;
        for (int i = lane; i < cols; i += 32) {
            s += xr[i];
        }
        m = warp_sum(s) / cols;
        float var = 0.0f;
        for (int i = lane; i < cols; i += 32) {
            float d = xr[i] - m;
            var += d * d;
        }
        r = 1.0f / sqrtf(warp_sum(var) / cols + eps);
        for (int i = lane; i < cols; i += 32) {
            float o = (xr[i] - m) * r * gamma[i] + beta[i];
            y[base + i] = o;
            if (ylow != nullptr) {
                ylow[base + i] = round16(o, half);
            }
        }
    }
    if (lane == 0) {
        mean[row] = m;
        rstd[row] = r;
    }
}

// The gradient reaching the output by two paths (a residual branch), dy + dy2, summed as it is read; dy2 may
// be null.
__device__ __forceinline__ float grad_at(const float* dy, const float* dy2, long long i) {
    return dy2 == nullptr ? dy[i] : dy[i] + dy2[i];
}

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = (dy + dy2) * gamma. Overwrites dx.
extern "C" __global__ void layernorm_backward(const float* dy, const float* dy2, const float* x, const float* gamma,
                                              const float* mean, const float* rstd, float* dx, int rows, int cols) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    long long base = (long long) row * cols;
    const float* xr = x + base;
    float m = mean[row];
    float r = rstd[row];
    float sg = 0.0f;
    float sgx = 0.0f;
    for (int i = lane; i < cols; i += 32) {
        float g = grad_at(dy, dy2, base + i) * gamma[i];
        sg += g;
        sgx += g * (xr[i] - m) * r;
    }
    float mg = warp_sum(sg) / cols;
    float mgx = warp_sum(sgx) / cols;
    float* dxr = dx + (long long) row * cols;
    for (int i = lane; i < cols; i += 32) {
        float xhat = (xr[i] - m) * r;
        dxr[i] = r * (grad_at(dy, dy2, base + i) * gamma[i] - mg - xhat * mgx);
    }
}

// dgamma[c] += sum_r dy * xhat, dbeta[c] += sum_r dy (dy: dy + dy2 where dy2 is given). Blocks of 1024 threads own 32 columns: thread
// (ty, tx) = (threadIdx.x / 32, threadIdx.x % 32) sums rows ty, ty + 32, ... of column 32 * blockIdx.x + tx (a
// warp reads 32 neighbouring columns of one row), then the 32 partial sums of a column are added in a fixed
// order (deterministic, no atomics).
extern "C" __global__ void layernorm_param_grad(const float* dy, const float* dy2, const float* x, const float* mean,
                                                const float* rstd, float* dgamma, float* dbeta, int rows, int cols) {
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
            float d = grad_at(dy, dy2, i);
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
