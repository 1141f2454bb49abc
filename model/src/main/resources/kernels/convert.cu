// fp32 -> bf16 / fp16 casts for the low-precision GEMM operands (autocast: fp32 master tensors, 16-bit copies
// for the tensor cores). Four elements per thread with 16-byte loads where the count allows.

#include "round16.cuh"

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
