// The optimizer over all parameters in one launch per kernel (multi-tensor). Each parameter is cut into
// chunks of CHUNK elements and each block owns one chunk: the host writes, per block, the tensor index and
// the chunk's first element (chunk_tensor, chunk_start), and per tensor the addresses of its value, gradient,
// moments and 16-bit copy (0 where it has none) and its length. So the whole grid works at once on every
// tensor (no walk over the tensors, no search), a block's accesses are contiguous, and 16-byte loads apply
// wherever a tensor's length is a multiple of 4 (allocator buffers are 512-byte aligned, CHUNK is a multiple
// of 4). The global gradient norm is two launches (block partials, then one block), and the AdamW step reads
// it on the device to clip, so no host sync is needed.

#include "round16.cuh"

#define CHUNK 8192

struct ChunkRange {
    long long begin;
    long long end;
    bool vec;
};

__device__ __forceinline__ ChunkRange chunk_range(const int* chunk_tensor, const int* chunk_start,
                                                  const long long* lengths, int* tensor) {
    int t = chunk_tensor[blockIdx.x];
    long long n = lengths[t];
    long long begin = chunk_start[blockIdx.x];
    long long end = begin + CHUNK < n ? begin + CHUNK : n;
    *tensor = t;
    return ChunkRange{begin, end, (n & 3) == 0};
}

// partial[block] = sum of squared gradients of this block's chunk. blockDim.x must be 256.
extern "C" __global__ void grad_sum_squares(const long long* grads, const long long* lengths, const int* chunk_tensor,
                                            const int* chunk_start, float* partial) {
    __shared__ float part[256];
    int t;
    ChunkRange r = chunk_range(chunk_tensor, chunk_start, lengths, &t);
    const float* g = (const float*) grads[t];
    float s = 0.0f;
    if (r.vec) {
        for (long long j = r.begin / 4 + threadIdx.x; j < r.end / 4; j += blockDim.x) {
            float4 v = reinterpret_cast<const float4*>(g)[j];
            s += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
        }
    } else {
        for (long long j = r.begin + threadIdx.x; j < r.end; j += blockDim.x) {
            s += g[j] * g[j];
        }
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            part[threadIdx.x] += part[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = part[0];
    }
}

// Every gradient set to zero in one launch (instead of one memset per tensor).
extern "C" __global__ void zero_grads(const long long* grads, const long long* lengths, const int* chunk_tensor,
                                      const int* chunk_start) {
    int t;
    ChunkRange r = chunk_range(chunk_tensor, chunk_start, lengths, &t);
    float* g = (float*) grads[t];
    if (r.vec) {
        for (long long j = r.begin / 4 + threadIdx.x; j < r.end / 4; j += blockDim.x) {
            reinterpret_cast<float4*>(g)[j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
    } else {
        for (long long j = r.begin + threadIdx.x; j < r.end; j += blockDim.x) {
            g[j] = 0.0f;
        }
    }
}

// The sum of the partials, from one block of 256 threads (valid in thread 0).
__device__ __forceinline__ float sum_partials(const float* partial, int blocks) {
    __shared__ float part[256];
    float s = 0.0f;
    for (int i = threadIdx.x; i < blocks; i += blockDim.x) {
        s += partial[i];
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            part[threadIdx.x] += part[threadIdx.x + stride];
        }
        __syncthreads();
    }
    return part[0];
}

// norm[0] = sqrt(sum of the partials), from one block of 256 threads.
extern "C" __global__ void grad_norm_finish(const float* partial, int blocks, float* norm) {
    float s = sum_partials(partial, blocks);
    if (threadIdx.x == 0) {
        norm[0] = sqrtf(s);
    }
}

// sum[0] = sum of the partials, from one block of 256 threads: a shard's sum of squares, which the ranks
// holding the other shards add to theirs (an all-reduce) before grad_norm_from_sum takes the root.
extern "C" __global__ void grad_sum_finish(const float* partial, int blocks, float* sum) {
    float s = sum_partials(partial, blocks);
    if (threadIdx.x == 0) {
        sum[0] = s;
    }
}

// norm[0] = sqrt(norm[0]): the global norm from the all-reduced sum of squares. One thread.
extern "C" __global__ void grad_norm_from_sum(float* norm) {
    norm[0] = sqrtf(norm[0]);
}

struct AdamWArgs {
    float clip;
    float lr;
    float beta1;
    float beta2;
    float eps;
    float wd;
    float step_size;
    float bc2_sqrt;
};

// torch.optim.AdamW's arithmetic on one element: p *= 1 - lr*wd; m = lerp(m, g, 1-b1);
// v = b2*v + (1-b2)*g*g; p -= step_size * m / (sqrt(v) / bc2_sqrt + eps).
__device__ __forceinline__ float adamw_element(float p, float graw, float* m, float* v, const AdamWArgs& a) {
    float g = graw * a.clip;
    float mj = *m + (1.0f - a.beta1) * (g - *m);
    float vj = a.beta2 * *v + (1.0f - a.beta2) * g * g;
    *m = mj;
    *v = vj;
    return p * (1.0f - a.lr * a.wd) - a.step_size * mj / (sqrtf(vj) / a.bc2_sqrt + a.eps);
}

// One AdamW step; step_size = lr / (1 - b1^t), bc2_sqrt = sqrt(1 - b2^t). The gradient is first unscaled
// (times inv_scale: 1, or 1/loss scale under fp16), then with norm != null and max_norm > 0 clipped by
// min(1, max_norm / (norm * inv_scale + 1e-6)) (clip_grad_norm_ of the unscaled norm). Where a tensor has a
// 16-bit copy (lows[t] != 0; low_half[t]: 1 fp16, 0 bf16) the new value is also written there, rounded to
// nearest even, as the cast kernel would: the autocast GEMMs then need no cast of the weights.
__device__ __forceinline__ void adamw_apply(const long long* params, const long long* grads, const long long* ms,
                                            const long long* vs, const long long* lows, const int* low_half,
                                            const long long* lengths, const int* chunk_tensor,
                                            const int* chunk_start, float lr, float beta1, float beta2, float eps,
                                            float wd, float step_size, float bc2_sqrt, const float* norm,
                                            float max_norm, float inv_scale) {
    AdamWArgs a{inv_scale, lr, beta1, beta2, eps, wd, step_size, bc2_sqrt};
    if (norm != nullptr && max_norm > 0.0f) {
        a.clip = inv_scale * fminf(1.0f, max_norm / (norm[0] * inv_scale + 1e-6f));
    }
    int t;
    ChunkRange r = chunk_range(chunk_tensor, chunk_start, lengths, &t);
    float* p = (float*) params[t];
    float* m = (float*) ms[t];
    float* v = (float*) vs[t];
    const float* g = (const float*) grads[t];
    unsigned short* low = (unsigned short*) lows[t];
    int half = low_half[t];
    if (r.vec) {
        for (long long j = r.begin / 4 + threadIdx.x; j < r.end / 4; j += blockDim.x) {
            float4 pv = reinterpret_cast<float4*>(p)[j];
            float4 gv = reinterpret_cast<const float4*>(g)[j];
            float4 mv = reinterpret_cast<float4*>(m)[j];
            float4 vv = reinterpret_cast<float4*>(v)[j];
            pv.x = adamw_element(pv.x, gv.x, &mv.x, &vv.x, a);
            pv.y = adamw_element(pv.y, gv.y, &mv.y, &vv.y, a);
            pv.z = adamw_element(pv.z, gv.z, &mv.z, &vv.z, a);
            pv.w = adamw_element(pv.w, gv.w, &mv.w, &vv.w, a);
            reinterpret_cast<float4*>(p)[j] = pv;
            reinterpret_cast<float4*>(m)[j] = mv;
            reinterpret_cast<float4*>(v)[j] = vv;
            if (low != nullptr) {
                reinterpret_cast<ushort4*>(low)[j] = make_ushort4(round16(pv.x, half), round16(pv.y, half),
                                                                  round16(pv.z, half), round16(pv.w, half));
            }
        }
    } else {
        for (long long j = r.begin + threadIdx.x; j < r.end; j += blockDim.x) {
            float pj = adamw_element(p[j], g[j], &m[j], &v[j], a);
            p[j] = pj;
            if (low != nullptr) {
                low[j] = round16(pj, half);
            }
        }
    }
}

extern "C" __global__ void adamw_step(const long long* params, const long long* grads, const long long* ms,
                                      const long long* vs, const long long* lows, const int* low_half,
                                      const long long* lengths, const int* chunk_tensor, const int* chunk_start,
                                      float lr, float beta1, float beta2, float eps, float wd, float step_size,
                                      float bc2_sqrt, const float* norm, float max_norm, float inv_scale) {
    adamw_apply(params, grads, ms, vs, lows, low_half, lengths, chunk_tensor, chunk_start, lr, beta1, beta2, eps, wd,
                step_size, bc2_sqrt, norm, max_norm, inv_scale);
}

// adamw_step with lr, step_size and bc2_sqrt read from device memory (hyper[0..2]) instead of the launch's
// arguments: a CUDA graph that captured this launch sees each step's values when the host updates them there.
extern "C" __global__ void adamw_step_dev(const long long* params, const long long* grads, const long long* ms,
                                          const long long* vs, const long long* lows, const int* low_half,
                                          const long long* lengths, const int* chunk_tensor, const int* chunk_start,
                                          const float* hyper, float beta1, float beta2, float eps, float wd,
                                          const float* norm, float max_norm, float inv_scale) {
    adamw_apply(params, grads, ms, vs, lows, low_half, lengths, chunk_tensor, chunk_start, hyper[0], beta1, beta2,
                eps, wd, hyper[1], hyper[2], norm, max_norm, inv_scale);
}
