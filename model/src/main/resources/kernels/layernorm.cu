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

// ---- backward with the row in registers (cols a multiple of 4, at most 1024, 16-byte aligned rows) ----
// layernorm_param_grad gives a 768-column norm 24 blocks: too few for the 512 rows of the ranking model. Here
// the parameter gradients ride along with dx: a warp keeps its rows' dy * xhat and dy sums per column in
// registers, a block adds its warps' sums in warp order, and writes them to partial[block][2][cols];
// layernorm_param_reduce adds the blocks' partial sums in block order. Rows go to warps in a fixed pattern, so
// the sums have a fixed order (deterministic) without atomics. Blocks of 256 threads (8 warps); the caller
// sizes partial for gridDim.x blocks. V float4 per lane (cols <= 128 V): one instance per row width class, so
// that a 768-wide row holds 6 float4 of dy and 12 of sums, not 8 and 16 (register spills cost more than the
// second read of x, which is in L1).
template <int V>
__device__ __forceinline__ void backward_rows(const float* dy, const float* dy2, const float* x, const float* gamma,
                                              const float* mean, const float* rstd, float* dx, float* partial,
                                              int rows, int cols) {
    __shared__ float4 accg[V * 32];
    __shared__ float4 accb[V * 32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    int nv = cols / 4;
    float4 pg[V];
    float4 pb[V];
#pragma unroll
    for (int k = 0; k < V; k++) {
        pg[k] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        pb[k] = pg[k];
    }
    const float4* g4 = reinterpret_cast<const float4*>(gamma);
    for (int row = blockIdx.x * 8 + warp; row < rows; row += gridDim.x * 8) {
        long long base = (long long) row * cols;
        const float4* dy4 = reinterpret_cast<const float4*>(dy + base);
        const float4* dz4 = reinterpret_cast<const float4*>(dy2 + base);
        const float4* x4 = reinterpret_cast<const float4*>(x + base);
        float m = mean[row];
        float r = rstd[row];
        float4 d[V];
        float sg = 0.0f;
        float sgx = 0.0f;
#pragma unroll
        for (int k = 0; k < V; k++) {
            int c = lane + 32 * k;
            if (c < nv) {
                d[k] = dy4[c];
                if (dy2 != nullptr) {
                    float4 e = dz4[c];
                    d[k] = make_float4(d[k].x + e.x, d[k].y + e.y, d[k].z + e.z, d[k].w + e.w);
                }
                float4 xv = x4[c];
                float4 h = make_float4((xv.x - m) * r, (xv.y - m) * r, (xv.z - m) * r, (xv.w - m) * r);
                float4 g = g4[c];
                float gx = d[k].x * g.x, gy = d[k].y * g.y, gz = d[k].z * g.z, gw = d[k].w * g.w;
                sg += (gx + gy) + (gz + gw);
                sgx += (gx * h.x + gy * h.y) + (gz * h.z + gw * h.w);
                pg[k] = make_float4(pg[k].x + d[k].x * h.x, pg[k].y + d[k].y * h.y, pg[k].z + d[k].z * h.z,
                                    pg[k].w + d[k].w * h.w);
                pb[k] = make_float4(pb[k].x + d[k].x, pb[k].y + d[k].y, pb[k].z + d[k].z, pb[k].w + d[k].w);
            }
        }
        float mg = warp_sum(sg) / cols;
        float mgx = warp_sum(sgx) / cols;
        float4* dx4 = reinterpret_cast<float4*>(dx + base);
#pragma unroll
        for (int k = 0; k < V; k++) {
            int c = lane + 32 * k;
            if (c < nv) {
                float4 xv = x4[c];
                float4 h = make_float4((xv.x - m) * r, (xv.y - m) * r, (xv.z - m) * r, (xv.w - m) * r);
                float4 g = g4[c];
                dx4[c] = make_float4(r * (d[k].x * g.x - mg - h.x * mgx), r * (d[k].y * g.y - mg - h.y * mgx),
                                     r * (d[k].z * g.z - mg - h.z * mgx), r * (d[k].w * g.w - mg - h.w * mgx));
            }
        }
    }
    for (int w = 0; w < 8; w++) {
        if (warp == w) {
#pragma unroll
            for (int k = 0; k < V; k++) {
                int c = lane + 32 * k;
                if (c < nv) {
                    if (w == 0) {
                        accg[c] = pg[k];
                        accb[c] = pb[k];
                    } else {
                        float4 a = accg[c];
                        float4 b = accb[c];
                        accg[c] = make_float4(a.x + pg[k].x, a.y + pg[k].y, a.z + pg[k].z, a.w + pg[k].w);
                        accb[c] = make_float4(b.x + pb[k].x, b.y + pb[k].y, b.z + pb[k].z, b.w + pb[k].w);
                    }
                }
            }
        }
        __syncthreads();
    }
    float4* out = reinterpret_cast<float4*>(partial + (long long) blockIdx.x * 2 * cols);
    for (int c = threadIdx.x; c < nv; c += blockDim.x) {
        out[c] = accg[c];
        out[nv + c] = accb[c];
    }
}

#define BACKWARD_ROWS(V)                                                                                         \
    extern "C" __global__ void __launch_bounds__(256) layernorm_backward_rows##V(                                \
            const float* dy, const float* dy2, const float* x, const float* gamma, const float* mean,            \
            const float* rstd, float* dx, float* partial, int rows, int cols) {                                  \
        backward_rows<V>(dy, dy2, x, gamma, mean, rstd, dx, partial, rows, cols);                                \
    }
BACKWARD_ROWS(2)
BACKWARD_ROWS(4)
BACKWARD_ROWS(6)
BACKWARD_ROWS(8)

// dgamma[c] += sum_b partial[b][0][c], dbeta[c] += sum_b partial[b][1][c] over the blocks of
// layernorm_backward_rows, in block order: blocks of 256 threads own 32 of the 2 * cols sums, warp w adds
// blocks w, w + 8, ..., then the 8 warp sums are added in order.
extern "C" __global__ void layernorm_param_reduce(const float* partial, int blocks, float* dgamma, float* dbeta,
                                                  int cols) {
    __shared__ float part[8][33];
    int tx = threadIdx.x % 32;
    int ty = threadIdx.x / 32;
    int c = blockIdx.x * 32 + tx;
    float s = 0.0f;
    if (c < 2 * cols) {
        for (int b = ty; b < blocks; b += 8) {
            s += partial[(long long) b * 2 * cols + c];
        }
    }
    part[ty][tx] = s;
    __syncthreads();
    if (ty == 0 && c < 2 * cols) {
        float t = 0.0f;
        for (int k = 0; k < 8; k++) {
            t += part[k][tx];
        }
        if (c < cols) {
            dgamma[c] += t;
        } else {
            dbeta[c - cols] += t;
        }
    }
}
