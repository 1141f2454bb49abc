// fp32 -> bf16 / fp16 casts for the low-precision GEMM operands (autocast: fp32 master tensors, 16-bit copies
// for the tensor cores). Round to nearest even, as torch's .to(bfloat16) / .half(); the PTX cvt instructions
// need no headers under NVRTC. Four elements per thread with 16-byte loads where the count allows.

__device__ __forceinline__ unsigned short to_bf16(float f) {
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

__device__ __forceinline__ unsigned short to_f16(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

// y[i] = round(x[i]) for i < n; half = 1 gives fp16, else bf16. Vector loads where x is 16-byte and y 8-byte
// aligned (allocator buffers are; views at an offset may not be); the rest element by element.
extern "C" __global__ void cast_f32_to_16(const float* __restrict__ x, unsigned short* __restrict__ y, long long n,
                                          int half) {
    bool aligned = ((unsigned long long) x & 15) == 0 && ((unsigned long long) y & 7) == 0;
    long long n4 = aligned ? n / 4 : 0;
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n4; i += (long long) gridDim.x * blockDim.x) {
        float4 v = reinterpret_cast<const float4*>(x)[i];
        ushort4 o;
        if (half) {
            o = make_ushort4(to_f16(v.x), to_f16(v.y), to_f16(v.z), to_f16(v.w));
        } else {
            o = make_ushort4(to_bf16(v.x), to_bf16(v.y), to_bf16(v.z), to_bf16(v.w));
        }
        reinterpret_cast<ushort4*>(y)[i] = o;
    }
    for (long long i = 4 * n4 + blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n;
         i += (long long) gridDim.x * blockDim.x) {
        y[i] = half ? to_f16(x[i]) : to_bf16(x[i]);
    }
}

// The backward pass's dy, rounded for the GEMMs, and the bias gradient from the fp32 dy in the same read:
// y[r, c] = round(dy[r, c]); db[c] += sum_r dy[r, c] (db may be null). The layout of elementwise.cu's
// bias_grad (blocks of 1024 threads own 32 columns, a warp reads 32 neighbouring columns of one row, 32
// partial sums per column added in a fixed order), so db is the same sum in the same order, deterministic.
extern "C" __global__ void cast_bias_grad(const float* __restrict__ dy, unsigned short* __restrict__ y,
                                          float* __restrict__ db, int rows, int cols, int half) {
    __shared__ float part[32][33];
    int tx = threadIdx.x % 32;
    int ty = threadIdx.x / 32;
    int c = blockIdx.x * 32 + tx;
    float s = 0.0f;
    if (c < cols) {
        for (int r = ty; r < rows; r += 32) {
            long long i = (long long) r * cols + c;
            float d = dy[i];
            y[i] = half ? to_f16(d) : to_bf16(d);
            s += d;
        }
    }
    if (db == nullptr) {
        return;
    }
    part[ty][tx] = s;
    __syncthreads();
    if (ty == 0 && c < cols) {
        float t = 0.0f;
        for (int k = 0; k < 32; k++) {
            t += part[k][tx];
        }
        db[c] += t;
    }
}
