// Elementwise model ops in fp32: the bias + GELU epilogue of a linear layer, GELU's backward, the bias
// gradient, residual add and gradient accumulation, and dropout from a Philox4x32-10 counter RNG.
// GELU is the exact erf form, PyTorch's default. All loops are grid-stride, so any grid covers any n.

#define SQRT_HALF 0.70710678118654752f
#define INV_SQRT_2PI 0.39894228040143268f

#include "round16.cuh"

__device__ __forceinline__ float gelu(float x) {
    return 0.5f * x * (1.0f + erff(x * SQRT_HALF));
}

__device__ __forceinline__ float gelu_grad(float x) {
    return 0.5f * (1.0f + erff(x * SQRT_HALF)) + x * INV_SQRT_2PI * expf(-0.5f * x * x);
}

// y = act(y + bias) in place over rows of `cols`; with act == 1 (GELU) the pre-activation y + bias is kept in
// `pre` for the backward pass. bias may be null. One pass after the GEMM instead of two.
extern "C" __global__ void bias_act_forward(float* y, const float* bias, float* pre, long long n, int cols, int act) {
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        float v = y[i] + (bias != nullptr ? bias[i % cols] : 0.0f);
        if (act == 1) {
            pre[i] = v;
            v = gelu(v);
        }
        y[i] = v;
    }
}

// y[r, c] = bias[c] over rows of `cols`, 16 bits: the C operand (beta = 1) of a cuBLAS GEMM into 16 bits, which
// then rounds acc + bias once, as cuBLASLt's bias epilogue does (where cuBLASLt has no algorithm for a shape).
extern "C" __global__ void fill_rows16(unsigned short* y, const unsigned short* bias, long long n, int cols) {
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        y[i] = bias[i % cols];
    }
}

// y = gelu(x), x fp32 or, where xlow is given instead, 16 bits (an autocast GEMM's output, as torch's GELU
// reads addmm's under autocast); where ylow is given, y rounded to 16 bits too, the operand of the autocast
// GEMM that reads y next (half = 1: fp16, else bf16, for both 16-bit operands); y may be null where only the
// 16-bit copy is read. 16-byte fp32 accesses (8-byte 16-bit ones) where n is a multiple of 4 and the pointers
// allow (the caller says so with width = 1); width = 2: x and the copy both 16-bit, y null, n a multiple of 8 and
// both 16-byte aligned; width = 0: one value per access.
extern "C" __global__ void gelu_forward(const float* x, const unsigned short* xlow, float* y, long long n,
                                        unsigned short* ylow, int half, int width) {
    long long stride = (long long) gridDim.x * blockDim.x;
    long long first = blockIdx.x * (long long) blockDim.x + threadIdx.x;
    if (width == 2) {
        // 16 bits in and out only (autocast's linear1 -> linear2): eight values per 16-byte access, as torch's
        // vectorized GELU, whose 4-value version ran 2.9 us against its 2.4 at 512 x 2048 on an H200
        for (long long i = first; i < n / 8; i += stride) {
            uint4 in = reinterpret_cast<const uint4*>(xlow)[i];
            unsigned int w[4] = {in.x, in.y, in.z, in.w};
#pragma unroll
            for (int j = 0; j < 4; j++) {
                float a = gelu(widen16((unsigned short) (w[j] & 0xffffu), half));
                float b = gelu(widen16((unsigned short) (w[j] >> 16), half));
                w[j] = (unsigned int) round16(a, half) | ((unsigned int) round16(b, half) << 16);
            }
            reinterpret_cast<uint4*>(ylow)[i] = make_uint4(w[0], w[1], w[2], w[3]);
        }
        return;
    }
    if (width == 1) {
        for (long long i = first; i < n / 4; i += stride) {
            float4 v;
            if (xlow != nullptr) {
                ushort4 h = reinterpret_cast<const ushort4*>(xlow)[i];
                v = make_float4(widen16(h.x, half), widen16(h.y, half), widen16(h.z, half), widen16(h.w, half));
            } else {
                v = reinterpret_cast<const float4*>(x)[i];
            }
            float4 g = make_float4(gelu(v.x), gelu(v.y), gelu(v.z), gelu(v.w));
            if (y != nullptr) {
                reinterpret_cast<float4*>(y)[i] = g;
            }
            if (ylow != nullptr) {
                reinterpret_cast<ushort4*>(ylow)[i] = make_ushort4(round16(g.x, half), round16(g.y, half),
                                                                   round16(g.z, half), round16(g.w, half));
            }
        }
        return;
    }
    for (long long i = first; i < n; i += stride) {
        float g = gelu(xlow != nullptr ? widen16(xlow[i], half) : x[i]);
        if (y != nullptr) {
            y[i] = g;
        }
        if (ylow != nullptr) {
            ylow[i] = round16(g, half);
        }
    }
}

// dx = dy * gelu'(x); dx may be dy itself (the linear layer's backward turns dy into d(pre) in place).
extern "C" __global__ void gelu_backward(const float* x, const float* dy, float* dx, long long n) {
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        dx[i] = dy[i] * gelu_grad(x[i]);
    }
}

// Rows a thread of bias_grad loads before it works on them: loads in flight instead of one latency per row
// (its stores may alias dy, so the compiler cannot move a later row's loads ahead of them itself).
#define DY_CHUNK 8

// The bias gradient, with what the linear layer's backward pass does to dy before its GEMMs fused into the
// same read of dy: d = dy[r, c], times gelu'(pre[r, c]) where pre (fp32) or pre16 (16 bits, half's type: the
// autocast pre-activation) is given (the backward pass of a fused bias + GELU); written to dpre where given (fp32 GEMMs; may be dy itself), rounded into low where given
// (autocast GEMMs; half = 1: fp16, else bf16); db[c] += sum_r d where db is given. Blocks of 256 threads own
// 8 columns, so that a 768-column dy makes 96 blocks (32-column tiles made 24, too few for the SMs): thread t
// works on column 8 * blockIdx.x + t % 8, rows t / 8, t / 8 + 32, ... (a warp reads four 32-byte row
// segments per step) and sums them in row order, then the 32 partial sums of a column are added in a fixed
// order (deterministic, no atomics).
extern "C" __global__ void __launch_bounds__(256) bias_grad(const float* dy, const float* pre,
                                                            const unsigned short* pre16, float* dpre,
                                                            unsigned short* low, int half, float* db, int rows,
                                                            int cols) {
    __shared__ float part[32][8];
    int tx = threadIdx.x % 8;
    int ty = threadIdx.x / 8;
    int c = blockIdx.x * 8 + tx;
    float s = 0.0f;
    if (c < cols) {
        for (int r0 = ty; r0 < rows; r0 += 32 * DY_CHUNK) {
            float d[DY_CHUNK];
            float p[DY_CHUNK];
#pragma unroll
            for (int j = 0; j < DY_CHUNK; j++) {
                int r = r0 + 32 * j;
                if (r < rows) {
                    long long i = (long long) r * cols + c;
                    d[j] = dy[i];
                    p[j] = pre != nullptr ? pre[i] : pre16 != nullptr ? widen16(pre16[i], half) : 0.0f;
                }
            }
#pragma unroll
            for (int j = 0; j < DY_CHUNK; j++) {
                int r = r0 + 32 * j;
                if (r < rows) {
                    long long i = (long long) r * cols + c;
                    float v = d[j];
                    if (pre != nullptr || pre16 != nullptr) {
                        v *= gelu_grad(p[j]);
                    }
                    if (dpre != nullptr) {
                        dpre[i] = v;
                    }
                    if (low != nullptr) {
                        low[i] = round16(v, half);
                    }
                    s += v;
                }
            }
        }
    }
    if (db == nullptr) {
        return;
    }
    part[ty][tx] = s;
    __syncthreads();
    if (threadIdx.x < 8 && c < cols) {
        float t = 0.0f;
        for (int k = 0; k < 32; k++) {
            t += part[k][tx];
        }
        db[c] += t;
    }
}

extern "C" __global__ void add(const float* a, const float* b, float* y, long long n) {
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        y[i] = a[i] + b[i];
    }
}

// dst += src: how a gradient reaching a tensor by two paths (a residual branch) is summed.
extern "C" __global__ void accumulate(float* dst, const float* src, long long n) {
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        dst[i] += src[i];
    }
}

// Philox4x32-10 (Salmon et al., SC'11); dev.aorta.model.Philox is the host copy the tests compare with.
__device__ uint4 philox(uint4 c, unsigned k0, unsigned k1) {
    for (int r = 0; r < 10; r++) {
        unsigned hi0 = __umulhi(0xD2511F53u, c.x);
        unsigned lo0 = 0xD2511F53u * c.x;
        unsigned hi1 = __umulhi(0xCD9E8D57u, c.z);
        unsigned lo1 = 0xCD9E8D57u * c.z;
        c = make_uint4(hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0);
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return c;
}

__device__ __forceinline__ float to_unit(unsigned bits) {
    return (float) (bits >> 8) * 5.9604644775390625e-8f; // 2^-24
}

// y = x * mask, mask = scale where u(seed, offset, i) >= p else 0. The same call on dy gives dropout's backward:
// the mask is regenerated from (seed, offset), never stored. Each thread draws one Philox block for 4 elements.
__device__ __forceinline__ void dropout_apply(const float* x, float* y, long long n, float p, float scale,
                                              unsigned long long seed, unsigned long long offset) {
    long long blocks = (n + 3) / 4;
    for (long long b = blockIdx.x * (long long) blockDim.x + threadIdx.x; b < blocks; b += (long long) gridDim.x * blockDim.x) {
        uint4 r = philox(make_uint4((unsigned) b, (unsigned) (b >> 32), (unsigned) offset, (unsigned) (offset >> 32)),
                         (unsigned) seed, (unsigned) (seed >> 32));
        unsigned u[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
        for (int k = 0; k < 4; k++) {
            long long i = 4 * b + k;
            if (i < n) {
                y[i] = to_unit(u[k]) >= p ? x[i] * scale : 0.0f;
            }
        }
    }
}

extern "C" __global__ void dropout(const float* x, float* y, long long n, float p, float scale,
                                   unsigned long long seed, unsigned long long offset) {
    dropout_apply(x, y, n, p, scale, seed, offset);
}

// dropout at Philox offset *base + offset: a CUDA graph that captured this launch draws each replay's masks
// from the base the host writes to device memory before the replay.
extern "C" __global__ void dropout_from_base(const float* x, float* y, long long n, float p, float scale,
                                             unsigned long long seed, const unsigned long long* base,
                                             unsigned long long offset) {
    dropout_apply(x, y, n, p, scale, seed, *base + offset);
}

// ReLU and its backward (torch's: the gradient passes where x > 0).
extern "C" __global__ void relu_forward(const float* x, float* y, long long n) {
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        y[i] = fmaxf(x[i], 0.0f);
    }
}

extern "C" __global__ void relu_backward(const float* x, const float* dy, float* dx, long long n) {
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
    }
}
