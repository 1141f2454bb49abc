// Layer norm over the last dimension in fp32: one warp per row (four rows per 128-thread block), mean and
// 1/std kept per row for the backward pass. Where the row fits in registers, the backward pass also sums the
// parameter gradients per block, and a small pass adds the blocks' sums in block order; otherwise the parameter
// gradients are a separate pass over column tiles and row chunks whose partial sums the last block of each tile
// adds in chunk order (an integer ticket decides which block, not the order). Deterministic either way, without
// float atomics.

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
// of dy (and dy2) and x, 16-byte accesses, g and xhat kept between the two passes. V float4 per lane: one
// instance per row width class, so that a 768-wide row holds 6 float4 of g and of xhat, not 8.
// The parameter gradients come from the same registers: each warp adds dy * xhat and dy of its rows into its own
// sums (its lanes own the same columns in every row), the block's 4 warps are added in warp order through shared
// memory, and the block writes them to partial[block][dγ, dβ][cols] for layernorm_param_grad_finish, which adds
// the blocks in block order: deterministic without float atomics, and dy and x are read once for all three
// results (torch's separate γ/β pass reads them again). Blocks of 128 threads, one row per warp at a time,
// striding by the grid: 512 rows in 128 blocks are one row per warp; more rows loop, so that the partial sums
// stay at most gridDim.x rows long. partial null: dx alone; dx null: the partial sums alone, in the same order
// (so that dx now and dγ/dβ later add up to the bits of both at once).
template <int V>
__device__ __forceinline__ void backward_rows(const float* dy, const float* dy2, const float* x, const float* gamma,
                                              const float* mean, const float* rstd, float* dx, int rows, int cols,
                                              float* partial) {
    constexpr int WARPS = 4;
    __shared__ float4 red[2][WARPS][32 * V];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    int nv = cols / 4;
    const float4* g4 = reinterpret_cast<const float4*>(gamma);
    float4 sdg[V];
    float4 sdb[V];
#pragma unroll
    for (int k = 0; k < V; k++) {
        sdg[k] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        sdb[k] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    for (int row = blockIdx.x * WARPS + warp; row < rows; row += gridDim.x * WARPS) {
        long long base = (long long) row * cols;
        const float4* dy4 = reinterpret_cast<const float4*>(dy + base);
        const float4* dz4 = reinterpret_cast<const float4*>(dy2 + base);
        const float4* x4 = reinterpret_cast<const float4*>(x + base);
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
                g[k] = make_float4(__fmul_rn(d.x, w.x), __fmul_rn(d.y, w.y), __fmul_rn(d.z, w.z),
                                   __fmul_rn(d.w, w.w));
                sg += (g[k].x + g[k].y) + (g[k].z + g[k].w);
                sgx += (g[k].x * h[k].x + g[k].y * h[k].y) + (g[k].z * h[k].z + g[k].w * h[k].w);
                if (partial != nullptr) {
                    sdg[k] = make_float4(sdg[k].x + d.x * h[k].x, sdg[k].y + d.y * h[k].y,
                                         sdg[k].z + d.z * h[k].z, sdg[k].w + d.w * h[k].w);
                    sdb[k] = make_float4(sdb[k].x + d.x, sdb[k].y + d.y, sdb[k].z + d.z, sdb[k].w + d.w);
                }
            }
        }
        if (dx == nullptr) {
            continue;  // the parameter gradients alone
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
    if (partial == nullptr) {
        return;  // dx alone (the caller takes the parameter gradients elsewhere, or not at all)
    }
#pragma unroll
    for (int k = 0; k < V; k++) {
        red[0][warp][lane + 32 * k] = sdg[k];
        red[1][warp][lane + 32 * k] = sdb[k];
    }
    __syncthreads();
    float4* out = reinterpret_cast<float4*>(partial + (long long) blockIdx.x * 2 * cols);
    for (int i = threadIdx.x; i < 2 * nv; i += blockDim.x) {
        int kind = i / nv;
        int c = i % nv;
        float4 t = red[kind][0][c];
#pragma unroll
        for (int w = 1; w < WARPS; w++) {
            float4 u = red[kind][w][c];
            t = make_float4(t.x + u.x, t.y + u.y, t.z + u.z, t.w + u.w);
        }
        out[i] = t;
    }
}

#define BACKWARD_ROWS(V)                                                                                         \
    extern "C" __global__ void __launch_bounds__(128) layernorm_backward_rows##V(                                \
            const float* dy, const float* dy2, const float* x, const float* gamma, const float* mean,            \
            const float* rstd, float* dx, int rows, int cols, float* partial) {                                  \
        backward_rows<V>(dy, dy2, x, gamma, mean, rstd, dx, rows, cols, partial);                                \
    }
BACKWARD_ROWS(2)
BACKWARD_ROWS(4)
BACKWARD_ROWS(6)
BACKWARD_ROWS(8)

// dgamma[c] += sum_b partial[b][0][c], dbeta[c] += sum_b partial[b][1][c] over the blocks of a
// layernorm_backward_rows launch, in block order. Blocks of 256 threads take 32 consecutive outputs of the 2 * cols
// (dγ then dβ) by 8 block lanes: lane l adds blocks l, l + 8, ... in order (loads coalesced along the outputs, all
// in flight before the adds), then the 8 lanes are added in lane order.
#define FINISH_LANES 8
extern "C" __global__ void __launch_bounds__(256) layernorm_param_grad_finish(const float* partial, int blocks,
                                                                            int cols, float* dgamma, float* dbeta) {
    __shared__ float lanes[FINISH_LANES][32];
    int j = blockIdx.x * 32 + threadIdx.x % 32;
    int l = threadIdx.x / 32;
    float t = 0.0f;
    if (j < 2 * cols) {
        constexpr int IN_FLIGHT = 8;
        for (int b0 = l; b0 < blocks; b0 += FINISH_LANES * IN_FLIGHT) {
            float p[IN_FLIGHT];
#pragma unroll
            for (int k = 0; k < IN_FLIGHT; k++) {
                int b = b0 + FINISH_LANES * k;
                p[k] = b < blocks ? partial[(long long) b * 2 * cols + j] : 0.0f;
            }
#pragma unroll
            for (int k = 0; k < IN_FLIGHT; k++) {
                t += p[k];
            }
        }
    }
    lanes[l][threadIdx.x % 32] = t;
    __syncthreads();
    if (l == 0 && j < 2 * cols) {
        for (int k = 1; k < FINISH_LANES; k++) {
            t += lanes[k][threadIdx.x];
        }
        float* out = j < cols ? dgamma + j : dbeta + (j - cols);
        *out += t;
    }
}

// dgamma[c] += sum_r dy * xhat, dbeta[c] += sum_r dy (dy: dy + dy2 where dy2 is given), deterministic without
// float atomics. A 2-D grid: blockIdx.x a tile of 8 * VEC columns, blockIdx.y a chunk of rowsPerChunk rows, so
// that the rows too are spread over the SMs (512 x 768: 24 tiles x 5 chunks, one block per SM). In a block of
// 256 threads, 8 column lanes of VEC consecutive columns (VEC = 4: 16-byte loads, a warp reads four 128-byte
// row segments) by 32 row lanes; a thread has PARAM_ROWS rows' loads in flight (512 rows in 5 chunks: one
// round). Sums go in a fixed order: a thread's rows in row order, the warp's 4 row lanes by shuffles, the 8
// warps in warp order, then the chunks in chunk order: with more than one chunk each block writes its tile's
// partial sums to partial[chunk][2][cols] and takes a ticket (an integer counter per tile); the block that
// takes the last ticket adds the tile's chunks in chunk order. Only which block adds varies, not the order,
// so results are bitwise the same run to run. atomicInc wraps the counter back to 0 at the last ticket, ready
// for the next launch (stream-ordered; a CUDA graph replays it the same way).
#define PARAM_ROWS 4
#define PARAM_ROW_LANES 32
#define PARAM_MAX_CHUNKS 32

template <int VEC>
struct Vec;
template <>
struct Vec<1> {
    float v[1];
    __device__ __forceinline__ void load(const float* p) { v[0] = *p; }
    __device__ __forceinline__ void add(const float* p) { v[0] += *p; }
};
template <>
struct Vec<4> {
    float v[4];
    __device__ __forceinline__ void load(const float* p) {
        float4 a = *reinterpret_cast<const float4*>(p);
        v[0] = a.x; v[1] = a.y; v[2] = a.z; v[3] = a.w;
    }
    __device__ __forceinline__ void add(const float* p) {
        float4 a = *reinterpret_cast<const float4*>(p);
        v[0] += a.x; v[1] += a.y; v[2] += a.z; v[3] += a.w;
    }
};

template <int VEC>
__device__ __forceinline__ void param_grad(const float* dy, const float* dy2, const float* x, const float* mean,
                                           const float* rstd, float* dgamma, float* dbeta, int rows, int cols,
                                           int rowsPerChunk, float* partial, unsigned int* tickets) {
    constexpr int TILE = 8 * VEC;
    __shared__ float red[2][8][TILE];
    __shared__ bool last;
    int cl = threadIdx.x % 8;
    int rl = threadIdx.x / 8;
    int c = blockIdx.x * TILE + cl * VEC;
    int chunk = blockIdx.y;
    int chunks = gridDim.y;
    int rEnd = min(rows, (chunk + 1) * rowsPerChunk);
    float sg[VEC];
    float sb[VEC];
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        sg[k] = 0.0f;
        sb[k] = 0.0f;
    }
    if (c < cols) {
        for (int r0 = chunk * rowsPerChunk + rl; r0 < rEnd; r0 += PARAM_ROW_LANES * PARAM_ROWS) {
            Vec<VEC> d[PARAM_ROWS];
            Vec<VEC> xv[PARAM_ROWS];
            float m[PARAM_ROWS];
            float s[PARAM_ROWS];
#pragma unroll
            for (int j = 0; j < PARAM_ROWS; j++) {
                int r = r0 + PARAM_ROW_LANES * j;
                if (r < rEnd) {
                    long long i = (long long) r * cols + c;
                    d[j].load(dy + i);
                    if (dy2 != nullptr) {
                        d[j].add(dy2 + i);
                    }
                    xv[j].load(x + i);
                    m[j] = mean[r];
                    s[j] = rstd[r];
                }
            }
#pragma unroll
            for (int j = 0; j < PARAM_ROWS; j++) {
                if (r0 + PARAM_ROW_LANES * j < rEnd) {
#pragma unroll
                    for (int k = 0; k < VEC; k++) {
                        sg[k] += d[j].v[k] * ((xv[j].v[k] - m[j]) * s[j]);
                        sb[k] += d[j].v[k];
                    }
                }
            }
        }
    }
    // the 4 row lanes of a warp that share columns: lanes cl, cl + 8, cl + 16, cl + 24
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        sg[k] += __shfl_xor_sync(0xffffffffu, sg[k], 8);
        sb[k] += __shfl_xor_sync(0xffffffffu, sb[k], 8);
        sg[k] += __shfl_xor_sync(0xffffffffu, sg[k], 16);
        sb[k] += __shfl_xor_sync(0xffffffffu, sb[k], 16);
    }
    int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 < 8) {
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            red[0][warp][cl * VEC + k] = sg[k];
            red[1][warp][cl * VEC + k] = sb[k];
        }
    }
    __syncthreads();
    // thread t < 2 * TILE owns (gamma or beta, column t % TILE of the tile)
    int kind = threadIdx.x / TILE;
    int col = blockIdx.x * TILE + threadIdx.x % TILE;
    bool owner = threadIdx.x < 2 * TILE && col < cols;
    float t = 0.0f;
    if (owner) {
        for (int w = 0; w < 8; w++) {
            t += red[kind][w][threadIdx.x % TILE];
        }
    }
    if (chunks > 1) {
        if (owner) {
            partial[((long long) chunk * 2 + kind) * cols + col] = t;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            // release: the block's partial sums (ordered before by the barrier) before its ticket; acquire: the
            // other chunks' partial sums after theirs. acq_rel, not __threadfence's sequentially consistent fence
            // (slower, and nothing here needs a total order).
            asm volatile("fence.acq_rel.gpu;" ::: "memory");
            last = atomicInc(tickets + blockIdx.x, chunks - 1) == chunks - 1;
            asm volatile("fence.acq_rel.gpu;" ::: "memory");
        }
        __syncthreads();
        if (!last) {
            return;
        }
        if (owner) {
            // all loads first (one round trip: the old gradient and every chunk's partial sum, these from L2 by
            // __ldcg, never a stale L1 line), then the adds in chunk order
            float* out = kind == 0 ? dgamma : dbeta;
            float old = out[col];
            float p[PARAM_MAX_CHUNKS];
#pragma unroll
            for (int k = 0; k < PARAM_MAX_CHUNKS; k++) {
                if (k < chunks) {
                    p[k] = __ldcg(partial + ((long long) k * 2 + kind) * cols + col);
                }
            }
            t = 0.0f;
#pragma unroll
            for (int k = 0; k < PARAM_MAX_CHUNKS; k++) {
                if (k < chunks) {
                    t += p[k];
                }
            }
            out[col] = old + t;
        }
        return;
    }
    if (owner) {
        float* out = kind == 0 ? dgamma : dbeta;
        out[col] += t;
    }
}

// Any cols and alignment, one column per column lane.
extern "C" __global__ void __launch_bounds__(256) layernorm_param_grad(
        const float* dy, const float* dy2, const float* x, const float* mean, const float* rstd, float* dgamma,
        float* dbeta, int rows, int cols, int rowsPerChunk, float* partial, unsigned int* tickets) {
    param_grad<1>(dy, dy2, x, mean, rstd, dgamma, dbeta, rows, cols, rowsPerChunk, partial, tickets);
}

// cols a multiple of 4 and 16-byte aligned dy, dy2 and x: four columns per column lane, 16-byte loads.
extern "C" __global__ void __launch_bounds__(256) layernorm_param_grad_vec4(
        const float* dy, const float* dy2, const float* x, const float* mean, const float* rstd, float* dgamma,
        float* dbeta, int rows, int cols, int rowsPerChunk, float* partial, unsigned int* tickets) {
    param_grad<4>(dy, dy2, x, mean, rstd, dgamma, dbeta, rows, cols, rowsPerChunk, partial, tickets);
}
