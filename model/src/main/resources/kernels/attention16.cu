// Scaled dot-product attention on the tensor cores under autocast: q, k, v [batch*heads, T, D] in bf16 or fp16
// (the encoder layer's head-layout pass writes them so, as torch's layer hands SDPA 16-bit tensors), D <= 64,
// any T. fp32 accumulation, fp32 online softmax, fp32 o, lse, dq, dk, dv (the layer's next passes read fp32).
// FlashAttention-2's shape: a block of 4 warps owns 64 rows of one head (query rows forward and for dq, key rows
// for dk/dv), each warp 16 of them, and walks the other side in tiles of 64 rows through shared memory.
//
// Why it is shaped so (the WIP version of run 7 was latency-bound at 12.5 us): operands arrive in 16 bits, so a
// tile is a straight copy, 16 bytes per cp.async with no registers and no conversion; the mma B operands come
// from row-major tiles through ldmatrix (K as stored for q.k^T, .trans for P.V and dS.K: no transposed stores);
// the row-block's own A operands are loaded once, by ldmatrix, and stay in registers; the scores never leave
// registers (the C fragments of S are, two n-tiles at a time, the A fragment of P.V). The FULL instance (T a
// multiple of 64, D = 64, the ranking model's heads) has no bounds checks; the general one zero-fills tile rows
// past T and columns past D (so padded products are 0) and masks keys past T.
//
// Fragments of mma.sync m16n8k16 (g = lane / 4, t = lane % 4): A (16 x 16) a0 = (g, 2t..2t+1), a1 = (g + 8, 2t..),
// a2 = (g, 2t + 8..), a3 = (g + 8, 2t + 8..); B (16 x 8) b0 = (k 2t..2t+1, n g), b1 = (k 2t + 8.., n g); C (16 x 8)
// c0, c1 = (g, 2t..2t+1), c2, c3 = (g + 8, 2t..2t+1). lse is the natural-log logsumexp of the scaled scores, as in
// attention.cu, so the fp32 and 16-bit paths keep the same contract.

#define A16_ROWS 64 // rows per block and per tile
#define A16_DMAX 64 // the largest head dimension
#define A16_LD 72   // tile row stride (16-bit elements): 144 bytes, so the 8 rows of an ldmatrix hit 8 bank groups
#define A16_LOG2E 1.4426950408889634f
#define A16_LN2 0.6931471805599453f
#define A16_NEG_INF __int_as_float(0xff800000)
#define A16_POS_INF __int_as_float(0x7f800000)

typedef unsigned short u16;

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    unsigned a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}

// 16 bytes global -> shared without registers; src_bytes 0 writes zeros (rows past T, columns past D)
__device__ __forceinline__ void cp16(void* dst, const void* src, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr(dst)), "l"(src), "r"(src_bytes));
}

__device__ __forceinline__ void cp_wait_all() {
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory");
}

__device__ __forceinline__ void ldsm4(unsigned r[4], const u16* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_addr(p)));
}

__device__ __forceinline__ void ldsm4t(unsigned r[4], const u16* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_addr(p)));
}

// c += a * b, fp32 accumulation; HALF = 1: fp16 operands, else bf16
template <int HALF>
__device__ __forceinline__ void mma(float c[4], const unsigned a[4], unsigned b0, unsigned b1) {
    if (HALF) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    } else {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
}

// two fp32 values rounded to nearest even into one register, lo in the low half
template <int HALF>
__device__ __forceinline__ unsigned pack(float lo, float hi) {
    unsigned r;
    if (HALF) {
        asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    } else {
        asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    }
    return r;
}

template <int HALF>
__device__ __forceinline__ u16 round1(float v) {
    return (u16) (pack<HALF>(v, 0.0f) & 0xffffu);
}

template <int HALF>
__device__ __forceinline__ float widen(u16 h) {
    if (HALF) {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
        return f;
    }
    return __uint_as_float(((unsigned) h) << 16);
}

__device__ __forceinline__ float quad_max(float v) {
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 1));
    return fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 2));
}

__device__ __forceinline__ float quad_sum(float v) {
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    return v + __shfl_xor_sync(0xffffffffu, v, 2);
}

// Rows [r0, r0 + 64) of a head's 16-bit [T, D] into a tile (row stride A16_LD), zeros past T and D. vec: D a multiple
// of 8 and the head 16-byte aligned, so that every 8 columns are one cp.async (waited for by cp_wait_all).
template <bool FULL>
__device__ __forceinline__ void load16(u16* tile, const u16* m, int r0, int T, int D, bool vec) {
    if (FULL || vec) {
#pragma unroll
        for (int i = 0; i < A16_ROWS * A16_DMAX / 8 / 128; i++) {
            int e = threadIdx.x + 128 * i;
            int r = e / 8;
            int c = 8 * (e % 8);
            bool in = FULL || (r0 + r < T && c < D);
            cp16(tile + r * A16_LD + c, m + (in ? (long long) (r0 + r) * D + c : 0), in ? 16 : 0);
        }
    } else {
        // eight loads in flight
#pragma unroll 8
        for (int e = threadIdx.x; e < A16_ROWS * A16_DMAX; e += 128) {
            int r = e / A16_DMAX;
            int c = e % A16_DMAX;
            tile[r * A16_LD + c] = r0 + r < T && c < D ? m[(long long) (r0 + r) * D + c] : (u16) 0;
        }
    }
}

// Rows [r0, r0 + 64) of a head's fp32 [T, D] (dO) rounded into a 16-bit tile, zeros past T and D.
template <int HALF, bool FULL>
__device__ __forceinline__ void load32(u16* tile, const float* m, int r0, int T, int D) {
    if (FULL) {
        float4 x[8];
#pragma unroll
        for (int i = 0; i < 8; i++) {
            int e = threadIdx.x + 128 * i;
            x[i] = reinterpret_cast<const float4*>(m + (long long) (r0 + e / 16) * D)[e % 16];
        }
#pragma unroll
        for (int i = 0; i < 8; i++) {
            int e = threadIdx.x + 128 * i;
            uint2 p = make_uint2(pack<HALF>(x[i].x, x[i].y), pack<HALF>(x[i].z, x[i].w));
            *reinterpret_cast<uint2*>(tile + (e / 16) * A16_LD + 4 * (e % 16)) = p;
        }
    } else {
#pragma unroll 8
        for (int e = threadIdx.x; e < A16_ROWS * A16_DMAX; e += 128) {
            int r = e / A16_DMAX;
            int c = e % A16_DMAX;
            tile[r * A16_LD + c] = round1<HALF>(r0 + r < T && c < D ? m[(long long) (r0 + r) * D + c] : 0.0f);
        }
    }
}

// The A fragments (4 k-steps over D) of a warp's 16 rows of a tile.
__device__ __forceinline__ void a_frags(unsigned a[4][4], const u16* tile, int w, int lane) {
    int mi = lane / 8;
    const u16* p = tile + (16 * w + (mi & 1) * 8 + lane % 8) * A16_LD + (mi >> 1) * 8;
#pragma unroll
    for (int ks = 0; ks < 4; ks++) {
        ldsm4(a[ks], p + 16 * ks);
    }
}

// s[n] (n-tiles of 8 of the tile's 64 rows) = A (16 rows x D, fragments a) times the tile's rows transposed
template <int HALF>
__device__ __forceinline__ void times_rows(float s[8][4], const unsigned a[4][4], const u16* tile, int lane) {
#pragma unroll
    for (int n = 0; n < 8; n++) {
        s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
    }
    int mi = lane / 8;
    const u16* p = tile + ((mi >> 1) * 8 + lane % 8) * A16_LD + (mi & 1) * 8;
#pragma unroll
    for (int ks = 0; ks < 4; ks++) {
#pragma unroll
        for (int np = 0; np < 4; np++) {
            unsigned b[4];
            ldsm4(b, p + 16 * np * A16_LD + 16 * ks);
            mma<HALF>(s[2 * np], a[ks], b[0], b[1]);
            mma<HALF>(s[2 * np + 1], a[ks], b[2], b[3]);
        }
    }
}

// acc[n] (n-tiles of 8 over D) += P (16 x 64, as C fragments p) times the tile (64 rows x D)
template <int HALF>
__device__ __forceinline__ void times_tile(float acc[8][4], const float p[8][4], const u16* tile, int lane) {
    int mi = lane / 8;
    const u16* base = tile + ((mi & 1) * 8 + lane % 8) * A16_LD + (mi >> 1) * 8;
#pragma unroll
    for (int kk = 0; kk < 4; kk++) {
        const float* lo = p[2 * kk];     // keys 16kk .. 16kk + 7: a0, a1
        const float* hi = p[2 * kk + 1]; // keys 16kk + 8 .. 16kk + 15: a2, a3
        unsigned a[4] = {pack<HALF>(lo[0], lo[1]), pack<HALF>(lo[2], lo[3]), pack<HALF>(hi[0], hi[1]),
                         pack<HALF>(hi[2], hi[3])};
#pragma unroll
        for (int np = 0; np < 4; np++) {
            unsigned b[4];
            ldsm4t(b, base + 16 * kk * A16_LD + 16 * np);
            mma<HALF>(acc[2 * np], a, b[0], b[1]);
            mma<HALF>(acc[2 * np + 1], a, b[2], b[3]);
        }
    }
}

__device__ __forceinline__ void zero(float acc[8][4]) {
#pragma unroll
    for (int n = 0; n < 8; n++) {
        acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.0f;
    }
}

// rows r0 + 16w + g (+8) of a head's fp32 [T, D] <- acc * f
template <bool FULL>
__device__ __forceinline__ void store(float* m, const float acc[8][4], int r0, float f0, float f1, int T, int D,
                                      int g, int t) {
#pragma unroll
    for (int h = 0; h < 2; h++) {
        int r = r0 + g + 8 * h;
        float f = h ? f1 : f0;
#pragma unroll
        for (int n = 0; n < 8; n++) {
            int c = 8 * n + 2 * t;
            if (FULL) {
                *reinterpret_cast<float2*>(m + (long long) r * D + c) = make_float2(acc[n][2 * h] * f,
                                                                                     acc[n][2 * h + 1] * f);
            } else {
                if (r < T && c < D) {
                    m[(long long) r * D + c] = acc[n][2 * h] * f;
                }
                if (r < T && c + 1 < D) {
                    m[(long long) r * D + c + 1] = acc[n][2 * h + 1] * f;
                }
            }
        }
    }
}

// x = row r, columns c0 .. c0 + 15 of a head's fp32 [T, D], 0 outside it (all loads issued before any is used)
template <bool FULL>
__device__ __forceinline__ void row16(float x[16], const float* m, int r, int c0, int T, int D) {
    if (FULL) {
#pragma unroll
        for (int j = 0; j < 16; j += 4) {
            float4 f = *reinterpret_cast<const float4*>(m + (long long) r * D + c0 + j);
            x[j] = f.x;
            x[j + 1] = f.y;
            x[j + 2] = f.z;
            x[j + 3] = f.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < 16; j++) {
            x[j] = r < T && c0 + j < D ? m[(long long) r * D + c0 + j] : 0.0f;
        }
    }
}

__device__ __forceinline__ bool vec_ok(const void* a, const void* b, const void* c, int D) {
    return D % 8 == 0 && ((((unsigned long long) a) | ((unsigned long long) b) | ((unsigned long long) c)) & 15) == 0;
}

// o = softmax(scale q k^T (+ causal mask)) v; grid (ceil(T / 64), heads), 128 threads.
template <int HALF, bool FULL>
__device__ __forceinline__ void forward(const u16* q, const u16* k, const u16* v, float* o, float* lse, int T, int D,
                                        float scale, int causal) {
    __shared__ __align__(16) u16 qs[A16_ROWS * A16_LD];
    __shared__ __align__(16) u16 ks[A16_ROWS * A16_LD];
    __shared__ __align__(16) u16 vs[A16_ROWS * A16_LD];
    long long head = (long long) blockIdx.y * T * D;
    q += head;
    k += head;
    v += head;
    int q0 = A16_ROWS * blockIdx.x;
    int lane = threadIdx.x % 32;
    int w = threadIdx.x / 32;
    int g = lane / 4;
    int t = lane % 4;
    bool vec = vec_ok(q, k, v, D);
    int row0 = q0 + 16 * w + g; // this thread's rows: row0 and row0 + 8
    float c = scale * A16_LOG2E;    // scores in log2 units: exp2 is one instruction
    float m0 = A16_NEG_INF, m1 = A16_NEG_INF, l0 = 0.0f, l1 = 0.0f;
    float acc[8][4];
    zero(acc);
    unsigned qa[4][4];
    int end = causal ? min(T, q0 + A16_ROWS) : T;
    load16<FULL>(qs, q, q0, T, D, vec);
    for (int k0 = 0; k0 < end; k0 += A16_ROWS) {
        if (k0 > 0) {
            __syncthreads(); // every warp is done with the previous tiles
        }
        load16<FULL>(ks, k, k0, T, D, vec);
        load16<FULL>(vs, v, k0, T, D, vec);
        cp_wait_all();
        __syncthreads();
        if (k0 == 0) {
            a_frags(qa, qs, w, lane);
        }
        float s[8][4];
        times_rows<HALF>(s, qa, ks, lane);
        float n0 = m0, n1 = m1;
#pragma unroll
        for (int n = 0; n < 8; n++) {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int key = k0 + 8 * n + 2 * t + (e & 1);
                int row = row0 + (e >= 2 ? 8 : 0);
                bool in = FULL ? (!causal || key <= row) : key < T && (!causal || key <= row);
                s[n][e] = in ? s[n][e] * c : A16_NEG_INF;
            }
            n0 = fmaxf(n0, fmaxf(s[n][0], s[n][1]));
            n1 = fmaxf(n1, fmaxf(s[n][2], s[n][3]));
        }
        n0 = quad_max(n0);
        n1 = quad_max(n1);
        // key 0 is visible to every row, so the running maxima are finite from the first tile on
        float corr0 = exp2f(m0 - n0), corr1 = exp2f(m1 - n1);
        m0 = n0;
        m1 = n1;
        l0 *= corr0;
        l1 *= corr1;
#pragma unroll
        for (int n = 0; n < 8; n++) {
            s[n][0] = exp2f(s[n][0] - m0);
            s[n][1] = exp2f(s[n][1] - m0);
            s[n][2] = exp2f(s[n][2] - m1);
            s[n][3] = exp2f(s[n][3] - m1);
            l0 += s[n][0] + s[n][1];
            l1 += s[n][2] + s[n][3];
            acc[n][0] *= corr0;
            acc[n][1] *= corr0;
            acc[n][2] *= corr1;
            acc[n][3] *= corr1;
        }
        times_tile<HALF>(acc, s, vs, lane);
    }
    l0 = quad_sum(l0);
    l1 = quad_sum(l1);
    store<FULL>(o + head, acc, q0 + 16 * w, 1.0f / l0, 1.0f / l1, T, D, g, t);
    if (t == 0) {
        float* lh = lse + (long long) blockIdx.y * T;
        if (FULL || row0 < T) {
            lh[row0] = (m0 + log2f(l0)) * A16_LN2;
        }
        if (FULL || row0 + 8 < T) {
            lh[row0 + 8] = (m1 + log2f(l1)) * A16_LN2;
        }
    }
}

// dq for a block's 64 query rows, and delta_i = dO_i . O_i (of the rounded dO) for attention16_backward_dkdv:
// P = exp(scale q k^T - lse), dP = dO v^T, dS = P (dP - delta), dq = scale dS k.
template <int HALF, bool FULL>
__device__ __forceinline__ void backward_dq(const u16* q, const u16* k, const u16* v, const float* o,
                                            const float* dout, const float* lse, float* delta, float* dq, int T,
                                            int D, float scale, int causal) {
    __shared__ __align__(16) u16 qs[A16_ROWS * A16_LD];
    __shared__ __align__(16) u16 dos[A16_ROWS * A16_LD];
    __shared__ __align__(16) u16 ks[A16_ROWS * A16_LD];
    __shared__ __align__(16) u16 vs[A16_ROWS * A16_LD];
    long long head = (long long) blockIdx.y * T * D;
    q += head;
    k += head;
    v += head;
    int q0 = A16_ROWS * blockIdx.x;
    int lane = threadIdx.x % 32;
    int w = threadIdx.x / 32;
    int g = lane / 4;
    int t = lane % 4;
    bool vec = vec_ok(q, k, v, D);
    int row0 = q0 + 16 * w + g;
    float c = scale * A16_LOG2E;
    // one round trip for everything the first key tile needs: q, k, v copies in flight while dO and this
    // thread's 16 columns of O (for delta) are loaded
    load16<FULL>(qs, q, q0, T, D, vec);
    load16<FULL>(ks, k, 0, T, D, vec);
    load16<FULL>(vs, v, 0, T, D, vec);
    float o0[16], o1[16];
    row16<FULL>(o0, o + head, row0, 16 * t, T, D);
    row16<FULL>(o1, o + head, row0 + 8, 16 * t, T, D);
    load32<HALF, FULL>(dos, dout + head, q0, T, D);
    cp_wait_all();
    __syncthreads();
    unsigned qa[4][4];
    unsigned da[4][4];
    a_frags(qa, qs, w, lane);
    a_frags(da, dos, w, lane);
    // delta of rows row0, row0 + 8 from the rounded dO: lanes of a quad take 16 columns each
    float d0 = 0.0f, d1 = 0.0f;
#pragma unroll
    for (int j = 0; j < 16; j++) {
        d0 += widen<HALF>(dos[(16 * w + g) * A16_LD + 16 * t + j]) * o0[j];
        d1 += widen<HALF>(dos[(16 * w + g + 8) * A16_LD + 16 * t + j]) * o1[j];
    }
    d0 = quad_sum(d0);
    d1 = quad_sum(d1);
    const float* lh = lse + (long long) blockIdx.y * T;
    float lse0 = (FULL || row0 < T ? lh[row0] : 0.0f) * A16_LOG2E;
    float lse1 = (FULL || row0 + 8 < T ? lh[row0 + 8] : 0.0f) * A16_LOG2E;
    if (t == 0) {
        float* dh = delta + (long long) blockIdx.y * T;
        if (FULL || row0 < T) {
            dh[row0] = d0;
        }
        if (FULL || row0 + 8 < T) {
            dh[row0 + 8] = d1;
        }
    }
    float acc[8][4];
    zero(acc);
    int end = causal ? min(T, q0 + A16_ROWS) : T;
    for (int k0 = 0; k0 < end; k0 += A16_ROWS) {
        if (k0 > 0) {
            __syncthreads(); // every warp is done with the previous tiles
            load16<FULL>(ks, k, k0, T, D, vec);
            load16<FULL>(vs, v, k0, T, D, vec);
            cp_wait_all();
            __syncthreads();
        }
        float s[8][4];
        float dp[8][4];
        times_rows<HALF>(s, qa, ks, lane);
        times_rows<HALF>(dp, da, vs, lane);
#pragma unroll
        for (int n = 0; n < 8; n++) {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int key = k0 + 8 * n + 2 * t + (e & 1);
                int row = row0 + (e >= 2 ? 8 : 0);
                bool in = FULL ? (!causal || key <= row) : key < T && (!causal || key <= row);
                float p = in ? exp2f(s[n][e] * c - (e >= 2 ? lse1 : lse0)) : 0.0f;
                s[n][e] = p * (dp[n][e] - (e >= 2 ? d1 : d0));
            }
        }
        times_tile<HALF>(acc, s, ks, lane);
    }
    store<FULL>(dq + head, acc, q0 + 16 * w, scale, scale, T, D, g, t);
}

// The dk/dv kernel's query tile i0: q (cp.async, waited for by cp_wait_all), dO rounded, lse (log2 units) and delta.
// A query past T gets lse +inf: its probabilities are exactly 0, no mask needed.
template <int HALF, bool FULL>
__device__ __forceinline__ void query_tile(u16* qs, u16* dos, float* ls, float* ds, const u16* q, const float* dout,
                                           const float* lh, const float* dh, int i0, int T, int D, bool vec) {
    load16<FULL>(qs, q, i0, T, D, vec);
    if (threadIdx.x < A16_ROWS) {
        bool in = FULL || i0 + threadIdx.x < T;
        ls[threadIdx.x] = in ? lh[i0 + threadIdx.x] * A16_LOG2E : A16_POS_INF;
        ds[threadIdx.x] = in ? dh[i0 + threadIdx.x] : 0.0f;
    }
    load32<HALF, FULL>(dos, dout, i0, T, D);
}

// dk, dv for a block's 64 key rows, from the transposed products: S^T = k q^T, dP^T = v dO^T,
// P^T = exp(scale S^T - lse_i), dS^T = P^T (dP^T - delta_i), dv = P^T dO, dk = scale dS^T q. Reads the delta that
// attention16_backward_dq wrote (launched first on the same stream).
template <int HALF, bool FULL>
__device__ __forceinline__ void backward_dkdv(const u16* q, const u16* k, const u16* v, const float* dout,
                                              const float* lse, const float* delta, float* dk, float* dv, int T,
                                              int D, float scale, int causal) {
    __shared__ __align__(16) u16 qs[A16_ROWS * A16_LD];
    __shared__ __align__(16) u16 dos[A16_ROWS * A16_LD];
    __shared__ __align__(16) u16 ks[A16_ROWS * A16_LD];
    __shared__ __align__(16) u16 vs[A16_ROWS * A16_LD];
    __shared__ float ls[A16_ROWS];
    __shared__ float ds[A16_ROWS];
    long long head = (long long) blockIdx.y * T * D;
    q += head;
    k += head;
    v += head;
    int k0 = A16_ROWS * blockIdx.x;
    int lane = threadIdx.x % 32;
    int w = threadIdx.x / 32;
    int g = lane / 4;
    int t = lane % 4;
    bool vec = vec_ok(q, k, v, D);
    int row0 = k0 + 16 * w + g; // this thread's key rows: row0 and row0 + 8
    float c = scale * A16_LOG2E;
    const float* lh = lse + (long long) blockIdx.y * T;
    const float* dh = delta + (long long) blockIdx.y * T;
    // causal: queries before the block's first key see none of its keys
    int first = causal ? k0 : 0;
    // one round trip for the block's k, v and the first query tile
    load16<FULL>(ks, k, k0, T, D, vec);
    load16<FULL>(vs, v, k0, T, D, vec);
    query_tile<HALF, FULL>(qs, dos, ls, ds, q, dout + head, lh, dh, first, T, D, vec);
    cp_wait_all();
    __syncthreads();
    unsigned ka[4][4];
    unsigned va[4][4];
    a_frags(ka, ks, w, lane);
    a_frags(va, vs, w, lane);
    float accv[8][4];
    float acck[8][4];
    zero(accv);
    zero(acck);
    for (int i0 = first; i0 < T; i0 += A16_ROWS) {
        if (i0 > first) {
            __syncthreads(); // every warp is done with the previous tiles
            query_tile<HALF, FULL>(qs, dos, ls, ds, q, dout + head, lh, dh, i0, T, D, vec);
            cp_wait_all();
            __syncthreads();
        }
        float s[8][4];
        float dp[8][4];
        times_rows<HALF>(s, ka, qs, lane);
        times_rows<HALF>(dp, va, dos, lane);
#pragma unroll
        for (int n = 0; n < 8; n++) {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int col = 8 * n + 2 * t + (e & 1);
                int key = row0 + (e >= 2 ? 8 : 0);
                float p = exp2f(s[n][e] * c - ls[col]);
                if (causal && key > i0 + col) {
                    p = 0.0f;
                }
                s[n][e] = p;
                dp[n][e] = p * (dp[n][e] - ds[col]);
            }
        }
        times_tile<HALF>(accv, s, dos, lane);
        times_tile<HALF>(acck, dp, qs, lane);
    }
    store<FULL>(dv + head, accv, k0 + 16 * w, 1.0f, 1.0f, T, D, g, t);
    store<FULL>(dk + head, acck, k0 + 16 * w, scale, scale, T, D, g, t);
}

// The launchable instances: bf16 / f16 operands, full tiles (T % 64 == 0, D == 64, 16-byte aligned heads) or any.
#define ATTENTION16(NAME, HALF, FULL)                                                                             \
    extern "C" __global__ void __launch_bounds__(128) attention16_forward_##NAME(                                 \
        const u16* q, const u16* k, const u16* v, float* o, float* lse, int T, int D, float scale, int causal) {  \
        forward<HALF, FULL>(q, k, v, o, lse, T, D, scale, causal);                                               \
    }                                                                                                             \
    extern "C" __global__ void __launch_bounds__(128) attention16_backward_dq_##NAME(                             \
        const u16* q, const u16* k, const u16* v, const float* o, const float* dout, const float* lse,            \
        float* delta, float* dq, int T, int D, float scale, int causal) {                                         \
        backward_dq<HALF, FULL>(q, k, v, o, dout, lse, delta, dq, T, D, scale, causal);                           \
    }                                                                                                             \
    extern "C" __global__ void __launch_bounds__(128) attention16_backward_dkdv_##NAME(                           \
        const u16* q, const u16* k, const u16* v, const float* dout, const float* lse, const float* delta,        \
        float* dk, float* dv, int T, int D, float scale, int causal) {                                            \
        backward_dkdv<HALF, FULL>(q, k, v, dout, lse, delta, dk, dv, T, D, scale, causal);                        \
    }

ATTENTION16(bf16, 0, false)
ATTENTION16(bf16_full, 0, true)
ATTENTION16(f16, 1, false)
ATTENTION16(f16_full, 1, true)
