// Scaled dot-product attention, flash style, fp32: q, k, v, o [batch*heads, T, D] with D <= 128, one warp per
// query row (forward, dq) or key row (dk/dv), four rows per block sharing 32-row tiles of the other side in
// shared memory. Softmax is online (running max and sum), so no T x T matrix is ever stored; the forward pass
// keeps only logsumexp per row, from which the backward passes recompute P. No atomics: dq and dk/dv are two
// launches, each owning its output rows (deterministic).
//
// In a tile loop, lane j handles key (or query) t0 + j for the scores, then the warp walks the tile's 32 rows
// broadcasting each probability by shuffle while lane l accumulates output dimensions l, l+32, l+64, l+96.

#define ROWS 4
#define TILE 32
#define MAXD 128
#define PAD (MAXD + 1) // odd row stride: lanes reading one column of different rows hit different banks
#define NEG_INF __int_as_float(0xff800000)

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

// rows [t0, t0 + TILE) of a [T, D] matrix into a shared tile, zeros past T
__device__ __forceinline__ void load_tile(float (*tile)[PAD], const float* src, int t0, int T, int D) {
    for (int e = threadIdx.x; e < TILE * D; e += blockDim.x) {
        int r = e / D;
        int c = e % D;
        tile[r][c] = t0 + r < T ? src[(long long) (t0 + r) * D + c] : 0.0f;
    }
}

__device__ __forceinline__ float dot_row(const float* a, const float* b, int D) {
    float s = 0.0f;
    for (int d = 0; d < D; d++) {
        s += a[d] * b[d];
    }
    return s;
}

// o = softmax(scale * q k^T (+ causal mask)) v, lse = log of the softmax denominator (with the max folded in).
extern "C" __global__ void attention_forward(const float* q, const float* k, const float* v, float* o, float* lse,
                                             int T, int D, float scale, int causal) {
    __shared__ float ks[TILE][PAD];
    __shared__ float vs[TILE][PAD];
    __shared__ float qs[ROWS][PAD];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    long long base = (long long) blockIdx.y * T * D;
    int i = blockIdx.x * ROWS + warp;
    bool valid = i < T;
    for (int d = lane; d < D; d += 32) {
        qs[warp][d] = valid ? q[base + (long long) i * D + d] : 0.0f;
    }
    float acc[MAXD / 32] = {0.0f, 0.0f, 0.0f, 0.0f};
    float m = NEG_INF;
    float l = 0.0f;
    int lastRow = min(T, (int) (blockIdx.x + 1) * ROWS) - 1;
    int end = causal ? lastRow + 1 : T;
    for (int t0 = 0; t0 < end; t0 += TILE) {
        __syncthreads();
        load_tile(ks, k + base, t0, T, D);
        load_tile(vs, v + base, t0, T, D);
        __syncthreads();
        int key = t0 + lane;
        bool visible = valid && key < T && !(causal && key > i);
        float s = visible ? scale * dot_row(qs[warp], ks[lane], D) : NEG_INF;
        float mNew = fmaxf(m, warp_max(s));
        if (mNew == NEG_INF) {
            continue; // nothing visible yet for this row (warp-uniform)
        }
        float p = visible ? expf(s - mNew) : 0.0f;
        float corr = expf(m - mNew);
        l = l * corr + warp_sum(p);
        m = mNew;
#pragma unroll
        for (int r = 0; r < MAXD / 32; r++) {
            acc[r] *= corr;
        }
        for (int jj = 0; jj < TILE; jj++) {
            float pj = __shfl_sync(0xffffffffu, p, jj);
#pragma unroll
            for (int r = 0; r < MAXD / 32; r++) {
                int d = lane + 32 * r;
                if (d < D) {
                    acc[r] += pj * vs[jj][d];
                }
            }
        }
    }
    if (valid) {
#pragma unroll
        for (int r = 0; r < MAXD / 32; r++) {
            int d = lane + 32 * r;
            if (d < D) {
                o[base + (long long) i * D + d] = acc[r] / l;
            }
        }
        if (lane == 0) {
            lse[(long long) blockIdx.y * T + i] = m + logf(l);
        }
    }
}

// dq = scale * sum_j dS_ij k_j with dS_ij = P_ij (dO_i . v_j - delta_i), delta_i = dO_i . O_i (written here for
// the dk/dv launch that follows on the same stream).
extern "C" __global__ void attention_backward_dq(const float* q, const float* k, const float* v, const float* o,
                                                 const float* dout, const float* lse, float* delta, float* dq,
                                                 int T, int D, float scale, int causal) {
    __shared__ float ks[TILE][PAD];
    __shared__ float vs[TILE][PAD];
    __shared__ float qs[ROWS][PAD];
    __shared__ float dos[ROWS][PAD];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    long long base = (long long) blockIdx.y * T * D;
    int i = blockIdx.x * ROWS + warp;
    bool valid = i < T;
    float dd = 0.0f;
    for (int d = lane; d < D; d += 32) {
        float qv = valid ? q[base + (long long) i * D + d] : 0.0f;
        float dov = valid ? dout[base + (long long) i * D + d] : 0.0f;
        qs[warp][d] = qv;
        dos[warp][d] = dov;
        dd += dov * (valid ? o[base + (long long) i * D + d] : 0.0f);
    }
    float di = warp_sum(dd);
    float li = valid ? lse[(long long) blockIdx.y * T + i] : 0.0f;
    if (valid && lane == 0) {
        delta[(long long) blockIdx.y * T + i] = di;
    }
    float acc[MAXD / 32] = {0.0f, 0.0f, 0.0f, 0.0f};
    int lastRow = min(T, (int) (blockIdx.x + 1) * ROWS) - 1;
    int end = causal ? lastRow + 1 : T;
    for (int t0 = 0; t0 < end; t0 += TILE) {
        __syncthreads();
        load_tile(ks, k + base, t0, T, D);
        load_tile(vs, v + base, t0, T, D);
        __syncthreads();
        int key = t0 + lane;
        bool visible = valid && key < T && !(causal && key > i);
        float ds = 0.0f;
        if (visible) {
            float p = expf(scale * dot_row(qs[warp], ks[lane], D) - li);
            ds = p * (dot_row(dos[warp], vs[lane], D) - di);
        }
        for (int jj = 0; jj < TILE; jj++) {
            float dsj = __shfl_sync(0xffffffffu, ds, jj);
#pragma unroll
            for (int r = 0; r < MAXD / 32; r++) {
                int d = lane + 32 * r;
                if (d < D) {
                    acc[r] += dsj * ks[jj][d];
                }
            }
        }
    }
    if (valid) {
#pragma unroll
        for (int r = 0; r < MAXD / 32; r++) {
            int d = lane + 32 * r;
            if (d < D) {
                dq[base + (long long) i * D + d] = scale * acc[r];
            }
        }
    }
}

// One warp per key row j: dv_j = sum_i P_ij dO_i, dk_j = scale * sum_i dS_ij q_i.
extern "C" __global__ void attention_backward_dkdv(const float* q, const float* k, const float* v, const float* dout,
                                                   const float* lse, const float* delta, float* dk, float* dv,
                                                   int T, int D, float scale, int causal) {
    __shared__ float qt[TILE][PAD];
    __shared__ float dot[TILE][PAD];
    __shared__ float kr[ROWS][PAD];
    __shared__ float vr[ROWS][PAD];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    long long base = (long long) blockIdx.y * T * D;
    const float* lseRow = lse + (long long) blockIdx.y * T;
    const float* deltaRow = delta + (long long) blockIdx.y * T;
    int j = blockIdx.x * ROWS + warp;
    bool valid = j < T;
    for (int d = lane; d < D; d += 32) {
        kr[warp][d] = valid ? k[base + (long long) j * D + d] : 0.0f;
        vr[warp][d] = valid ? v[base + (long long) j * D + d] : 0.0f;
    }
    float dka[MAXD / 32] = {0.0f, 0.0f, 0.0f, 0.0f};
    float dva[MAXD / 32] = {0.0f, 0.0f, 0.0f, 0.0f};
    // with the causal mask only queries i >= j see key j
    int start = causal ? (int) (blockIdx.x * ROWS) / TILE * TILE : 0;
    for (int t0 = start; t0 < T; t0 += TILE) {
        __syncthreads();
        load_tile(qt, q + base, t0, T, D);
        load_tile(dot, dout + base, t0, T, D);
        __syncthreads();
        int query = t0 + lane;
        bool visible = valid && query < T && !(causal && j > query);
        float p = 0.0f;
        float ds = 0.0f;
        if (visible) {
            p = expf(scale * dot_row(qt[lane], kr[warp], D) - lseRow[query]);
            ds = p * (dot_row(dot[lane], vr[warp], D) - deltaRow[query]);
        }
        for (int ii = 0; ii < TILE; ii++) {
            float pi = __shfl_sync(0xffffffffu, p, ii);
            float dsi = __shfl_sync(0xffffffffu, ds, ii);
#pragma unroll
            for (int r = 0; r < MAXD / 32; r++) {
                int d = lane + 32 * r;
                if (d < D) {
                    dva[r] += pi * dot[ii][d];
                    dka[r] += dsi * qt[ii][d];
                }
            }
        }
    }
    if (valid) {
#pragma unroll
        for (int r = 0; r < MAXD / 32; r++) {
            int d = lane + 32 * r;
            if (d < D) {
                dk[base + (long long) j * D + d] = scale * dka[r];
                dv[base + (long long) j * D + d] = dva[r];
            }
        }
    }
}

// ---- the scores path (all heads' scores fit the op's scratch budget): the T x T scores through batched GEMMs (cuBLAS), these two kernels between ----
// S [batch*heads, T, T] row-major holds q.k for query row i, key column j. One warp per row.

// S row -> P = softmax(scale * S) in place (causal: keys j > i masked), lse = m + log(l) as the flash kernel's.
extern "C" __global__ void attention_small_softmax(float* s, float* lse, int rows, int T, float scale, int causal) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    int i = row % T;
    int end = causal ? i + 1 : T;
    float* sr = s + (long long) row * T;
    float m = NEG_INF;
    for (int j = lane; j < end; j += 32) {
        m = fmaxf(m, scale * sr[j]);
    }
    m = warp_max(m);
    float l = 0.0f;
    for (int j = lane; j < end; j += 32) {
        l += expf(scale * sr[j] - m);
    }
    l = warp_sum(l);
    float inv = 1.0f / l;
    for (int j = lane; j < T; j += 32) {
        sr[j] = j < end ? expf(scale * sr[j] - m) * inv : 0.0f;
    }
    if (lane == 0) {
        lse[row] = m + logf(l);
    }
}

// From S (recomputed q.k) and dP = dO.v^T: P = exp(scale * S - lse) written over S, delta = sum_j P dP (= dO.O),
// dS = P * (dP - delta) written over dP.
extern "C" __global__ void attention_small_backward(float* s, float* dp, const float* lse, float* delta, int rows,
                                                    int T, float scale, int causal) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    int i = row % T;
    int end = causal ? i + 1 : T;
    float* sr = s + (long long) row * T;
    float* dr = dp + (long long) row * T;
    float li = lse[row];
    float d = 0.0f;
    for (int j = lane; j < T; j += 32) {
        float p = j < end ? expf(scale * sr[j] - li) : 0.0f;
        sr[j] = p;
        d += p * dr[j];
    }
    d = warp_sum(d);
    for (int j = lane; j < T; j += 32) {
        dr[j] = sr[j] * (dr[j] - d);
    }
    if (lane == 0) {
        delta[row] = d;
    }
}

// ---- decoding against a KV cache: t new queries over L = pos + t cached keys ----
// S [rows = batch*heads*t, L] row-major; query i (absolute position pos + i) sees keys j <= pos + i. P in place.
// pos = L - t, or *position where that is given (L then spans the whole cache; the slots after the query's own,
// stale or zero, get probability 0: the shapes of a CUDA graph's decode step stay the same at every position).
extern "C" __global__ void attention_cached_softmax(float* s, int rows, int t, int L, float scale,
                                                    const int* position) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    int end = (position != nullptr ? *position : L - t) + row % t + 1;
    float* sr = s + (long long) row * L;
    float m = NEG_INF;
    for (int j = lane; j < end; j += 32) {
        m = fmaxf(m, scale * sr[j]);
    }
    m = warp_max(m);
    float l = 0.0f;
    for (int j = lane; j < end; j += 32) {
        l += expf(scale * sr[j] - m);
    }
    l = warp_sum(l);
    float inv = 1.0f / l;
    for (int j = lane; j < L; j += 32) {
        sr[j] = j < end ? expf(scale * sr[j] - m) * inv : 0.0f;
    }
}
