// Head layout changes of multi-head attention. Projections produce rows [batch, T, ...] in which head h's
// D values sit at column offset + h*D (row length rowStride: 3E for the fused q/k/v projection, E after the
// heads are merged); attention wants each head contiguous, [batch, heads, T, D]. Also column blocks, for
// concatenation along the last dimension.

#include "round16.cuh"

// The heads layout [parts, B, H, T, D] against the rows layout: element (p, b, h, t, d) of the heads sits at
// (b*T + t) * rowStride + offset + p*H*D + h*D + d of the rows; with parts = 3 the fused q/k/v projection's rows
// hold three consecutive [B, H, T, D] tensors. move(i, r) is called for every w-th element (i counted in groups
// of w neighbouring d, r the rows index of the group's first element), striding by the grid. w = 4 where D,
// rowStride and offset are multiples of 4 (vec = 1): 16-byte fp32 or 8-byte 16-bit accesses.
template <typename Move>
__device__ __forceinline__ void for_each_head_group(int B, int T, int H, int D, int rowStride, int offset, int parts,
                                                    int w, Move move) {
    int dw = D / w;
    long long n = (long long) parts * B * H * T * dw;
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        int d = (int) (i % dw) * w;
        int t = (int) (i / dw % T);
        int h = (int) (i / ((long long) dw * T) % H);
        long long b = i / ((long long) dw * T * H) % B;
        int p = (int) (i / ((long long) dw * T * H * B));
        move(i, (b * T + t) * rowStride + offset + ((long long) p * H + h) * D + d);
    }
}

__device__ __forceinline__ ushort4 round16x4(float4 x, int half) {
    return make_ushort4(round16(x.x, half), round16(x.y, half), round16(x.z, half), round16(x.w, half));
}

// heads ← rows, fp32.
extern "C" __global__ void rows_to_heads(const float* src, float* dst, int B, int T, int H, int D, int rowStride,
                                         int offset, int parts, int vec) {
    for_each_head_group(B, T, H, D, rowStride, offset, parts, vec ? 4 : 1, [&](long long i, long long r) {
        if (vec) {
            reinterpret_cast<float4*>(dst)[i] = *reinterpret_cast<const float4*>(src + r);
        } else {
            dst[i] = src[r];
        }
    });
}

// heads ← rows, rounding fp32 into 16 bits (half = 1: fp16, else bf16): fp32 rows become the 16-bit q, k, v of the
// tensor-core attention in one pass (no separate cast), as torch's layer hands SDPA 16-bit tensors.
extern "C" __global__ void rows_to_heads16(const float* src, unsigned short* dst, int B, int T, int H, int D,
                                           int rowStride, int offset, int parts, int vec, int half) {
    for_each_head_group(B, T, H, D, rowStride, offset, parts, vec ? 4 : 1, [&](long long i, long long r) {
        if (vec) {
            reinterpret_cast<ushort4*>(dst)[i] = round16x4(*reinterpret_cast<const float4*>(src + r), half);
        } else {
            dst[i] = round16(src[r], half);
        }
    });
}

// heads ← rows, both 16-bit (a copy): under autocast the in-projection writes its rows in 16 bits, rounded once in
// its epilogue as torch's addmm rounds them.
extern "C" __global__ void rows16_to_heads16(const unsigned short* src, unsigned short* dst, int B, int T, int H,
                                             int D, int rowStride, int offset, int parts, int vec) {
    for_each_head_group(B, T, H, D, rowStride, offset, parts, vec ? 4 : 1, [&](long long i, long long r) {
        if (vec) {
            reinterpret_cast<ushort4*>(dst)[i] = *reinterpret_cast<const ushort4*>(src + r);
        } else {
            dst[i] = src[r];
        }
    });
}

// rows ← heads, fp32: the gradients of q, k and v back into the fused projection's rows in one launch.
extern "C" __global__ void heads_to_rows(const float* src, float* dst, int B, int T, int H, int D, int rowStride,
                                         int offset, int parts, int vec) {
    for_each_head_group(B, T, H, D, rowStride, offset, parts, vec ? 4 : 1, [&](long long i, long long r) {
        if (vec) {
            *reinterpret_cast<float4*>(dst + r) = reinterpret_cast<const float4*>(src)[i];
        } else {
            dst[r] = src[i];
        }
    });
}

// rows ← heads, rounding into 16 bits: under autocast the attention output's merged heads go straight into the
// out-projection's 16-bit operand (the encoder layer writes it again in its backward pass rather than keep it).
extern "C" __global__ void heads_to_rows16(const float* src, unsigned short* dst, int B, int T, int H, int D,
                                           int rowStride, int offset, int parts, int vec, int half) {
    for_each_head_group(B, T, H, D, rowStride, offset, parts, vec ? 4 : 1, [&](long long i, long long r) {
        if (vec) {
            *reinterpret_cast<ushort4*>(dst + r) = round16x4(reinterpret_cast<const float4*>(src)[i], half);
        } else {
            dst[r] = round16(src[i], half);
        }
    });
}

// Concatenation along the last dimension: src [rows, cols] into columns [offset, offset + cols) of dst
// [rows, dstCols] (forward), and back out of them (the backward pass hands each input its slice).
extern "C" __global__ void columns_into(const float* src, float* dst, long long rows, int cols, int dstCols,
                                        int offset) {
    long long n = rows * cols;
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        long long r = i / cols;
        dst[r * dstCols + offset + i % cols] = src[i];
    }
}

extern "C" __global__ void columns_from(const float* src, float* dst, long long rows, int cols, int srcCols,
                                        int offset) {
    long long n = rows * cols;
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        long long r = i / cols;
        dst[i] = src[r * srcCols + offset + i % cols];
    }
}

// The fused projection's rows [B, t, rowStride] (head h's query at h*D, key at e + h*D, value at 2e + h*D,
// e = H*D) split in one launch: queries into q [B, H, t, D], keys and values appended to kdst and vdst
// [B, H, maxT, D] at positions pos .. pos + t - 1 (a KV cache; pos read from position where that is given: a decode
// step replayed as a CUDA graph). vec = 1: four neighbouring d per thread (D, rowStride
// and the pointers allow 16-byte accesses).
extern "C" __global__ void rows_to_heads_and_cache(const float* src, float* q, float* kdst, float* vdst,
                                                   const int* position, int B, int t, int H, int D, int rowStride,
                                                   int maxT, int pos, int vec) {
    if (position != nullptr) {
        pos = *position;
    }
    int w = vec ? 4 : 1;
    int dw = D / w;
    long long part = (long long) B * H * t * dw;
    int e = H * D;
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < 3 * part; i += (long long) gridDim.x * blockDim.x) {
        int p = (int) (i / part);
        long long j = i - p * part;
        int d = (int) (j % dw) * w;
        int tt = (int) (j / dw % t);
        int h = (int) (j / ((long long) dw * t) % H);
        int b = (int) (j / ((long long) dw * t * H));
        const float* from = src + ((long long) b * t + tt) * rowStride + p * e + h * D + d;
        float* to = p == 0 ? q + (((long long) b * H + h) * t + tt) * D + d
                           : (p == 1 ? kdst : vdst) + (((long long) b * H + h) * maxT + pos + tt) * D + d;
        if (vec) {
            *reinterpret_cast<float4*>(to) = *reinterpret_cast<const float4*>(from);
        } else {
            *to = *from;
        }
    }
}

// A KV cache's position on the device, for decode steps replayed as CUDA graphs: set to value (add = 0: after a
// step launched with the position as an argument) or advanced by it (add = 1: after a replayable step).
extern "C" __global__ void cache_position(int* position, int value, int add) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        *position = add ? *position + value : value;
    }
}
