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

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = (dy + dy2) * gamma. Overwrites dx. g is rounded on
// its own (__fmul_rn, no FMA contraction into g - mean(g)), so that a one-feature row, whose g equals mean(g),
// gets dx = 0 exactly. One warp per row; the parameter gradients are layernorm_param_grad's.
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
        float g = __fmul_rn(grad_at(dy, dy2, base + i), gamma[i]);
        sg += g;
        sgx += g * (xr[i] - m) * r;
    }
    float mg = warp_sum(sg) / cols;
    float mgx = warp_sum(sgx) / cols;
    float* dxr = dx + (long long) row * cols;
    for (int i = lane; i < cols; i += 32) {
        float xhat = (xr[i] - m) * r;
        dxr[i] = r * (__fmul_rn(grad_at(dy, dy2, base + i), gamma[i]) - mg - xhat * mgx);
    }
}

// The same dx with the row in registers (cols a multiple of 4, at most 128 V, 16-byte aligned rows): one read
// of dy (and dy2) and x, 16-byte accesses, g and xhat kept between the two passes. One warp per row, blocks of
// 128 threads (4 rows), so that 512 rows make 128 blocks, one per SM. V float4 per lane: one instance per row
// width class, so that a 768-wide row holds 6 float4 of g and of xhat, not 8.
template <int V>
__device__ __forceinline__ void backward_row(const float* dy, const float* dy2, const float* x, const float* gamma,
                                             const float* mean, const float* rstd, float* dx, int rows, int cols) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    int nv = cols / 4;
    long long base = (long long) row * cols;
    const float4* dy4 = reinterpret_cast<const float4*>(dy + base);
    const float4* dz4 = reinterpret_cast<const float4*>(dy2 + base);
    const float4* x4 = reinterpret_cast<const float4*>(x + base);
    const float4* g4 = reinterpret_cast<const float4*>(gamma);
    float m = mean[row];
    float r = rstd[row];
    float4 g[V];
    float4 h[V];
    float sg = 0.0f;
    float sgx = 0.0f;
#pragma unroll
    for (int k = 0; k < V; k++) {
        int c = lane + 32 * k;
        if (c < nv) {
            float4 d = dy4[c];
            if (dy2 != nullptr) {
                float4 e = dz4[c];
                d = make_float4(d.x + e.x, d.y + e.y, d.z + e.z, d.w + e.w);
            }
            float4 xv = x4[c];
            float4 w = g4[c];
            h[k] = make_float4((xv.x - m) * r, (xv.y - m) * r, (xv.z - m) * r, (xv.w - m) * r);
            g[k] = make_float4(__fmul_rn(d.x, w.x), __fmul_rn(d.y, w.y), __fmul_rn(d.z, w.z), __fmul_rn(d.w, w.w));
            sg += (g[k].x + g[k].y) + (g[k].z + g[k].w);
            sgx += (g[k].x * h[k].x + g[k].y * h[k].y) + (g[k].z * h[k].z + g[k].w * h[k].w);
        }
    }
    float mg = warp_sum(sg) / cols;
    float mgx = warp_sum(sgx) / cols;
    float4* dx4 = reinterpret_cast<float4*>(dx + base);
#pragma unroll
    for (int k = 0; k < V; k++) {
        int c = lane + 32 * k;
        if (c < nv) {
            dx4[c] = make_float4(r * (g[k].x - mg - h[k].x * mgx), r * (g[k].y - mg - h[k].y * mgx),
                                 r * (g[k].z - mg - h[k].z * mgx), r * (g[k].w - mg - h[k].w * mgx));
        }
    }
}

#define BACKWARD_ROWS(V)                                                                                         \
    extern "C" __global__ void __launch_bounds__(128) layernorm_backward_rows##V(                                \
            const float* dy, const float* dy2, const float* x, const float* gamma, const float* mean,            \
            const float* rstd, float* dx, int rows, int cols) {                                                  \
        backward_row<V>(dy, dy2, x, gamma, mean, rstd, dx, rows, cols);                                          \
    }
BACKWARD_ROWS(2)
BACKWARD_ROWS(4)
BACKWARD_ROWS(6)
BACKWARD_ROWS(8)

// Rows a thread of layernorm_param_grad loads before it adds them: loads in flight instead of one latency per
// row (512 rows: two rounds).
#define PARAM_CHUNK 8

// dgamma[c] += sum_r dy * xhat, dbeta[c] += sum_r dy (dy: dy + dy2 where dy2 is given). Blocks of 256 threads
// own 8 columns, so that a 768-column norm makes 96 blocks (32-column tiles made 24, too few for the SMs):
// thread t sums column 8 * blockIdx.x + t % 8 over rows t / 8, t / 8 + 32, ... in row order (a warp reads four
// 32-byte row segments per step), then the 32 partial sums of a column are added in a fixed order
// (deterministic, no atomics; the same order as one thread per column and row phase).
extern "C" __global__ void __launch_bounds__(256) layernorm_param_grad(const float* dy, const float* dy2,
                                                                       const float* x, const float* mean,
                                                                       const float* rstd, float* dgamma,
                                                                       float* dbeta, int rows, int cols) {
    __shared__ float pg[32][8];
    __shared__ float pb[32][8];
    int tx = threadIdx.x % 8;
    int ty = threadIdx.x / 8;
    int c = blockIdx.x * 8 + tx;
    float sg = 0.0f;
    float sb = 0.0f;
    if (c < cols) {
        for (int r0 = ty; r0 < rows; r0 += 32 * PARAM_CHUNK) {
            float d[PARAM_CHUNK];
            float h[PARAM_CHUNK];
#pragma unroll
            for (int j = 0; j < PARAM_CHUNK; j++) {
                int r = r0 + 32 * j;
                if (r < rows) {
                    long long i = (long long) r * cols + c;
                    d[j] = grad_at(dy, dy2, i);
                    h[j] = (x[i] - mean[r]) * rstd[r];
                }
            }
#pragma unroll
            for (int j = 0; j < PARAM_CHUNK; j++) {
                if (r0 + 32 * j < rows) {
                    sg += d[j] * h[j];
                    sb += d[j];
                }
            }
        }
    }
    pg[ty][tx] = sg;
    pb[ty][tx] = sb;
    __syncthreads();
    if (threadIdx.x < 16) {
        int k = threadIdx.x % 8;
        int col = blockIdx.x * 8 + k;
        float t = 0.0f;
        for (int y = 0; y < 32; y++) {
            t += threadIdx.x < 8 ? pg[y][k] : pb[y][k];
        }
        if (col < cols) {
            if (threadIdx.x < 8) {
                dgamma[col] += t;
            } else {
                dbeta[col] += t;
            }
        }
    }
}
