// Fills device buffers with reproducible uniform values in [-1, 1): a hash of (seed, index),
// so any buffer size and any launch shape give the same data for the same seed.

__device__ __forceinline__ float uniform_pm1(unsigned long long i, unsigned int seed) {
    unsigned long long z = i + 0x9E3779B97F4A7C15ull * (seed + 1ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z = z ^ (z >> 31);
    return (float)(z >> 40) * (2.0f / 16777216.0f) - 1.0f;  // 24 random bits
}

extern "C" __global__ void fill_uniform_f32(float* p, long long n, unsigned int seed) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        p[i] = uniform_pm1(i, seed);
    }
}

// bf16 = upper half of the fp32 bit pattern, rounded to nearest even.
extern "C" __global__ void fill_uniform_bf16(unsigned short* p, long long n, unsigned int seed) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        unsigned int bits = __float_as_uint(uniform_pm1(i, seed));
        bits += 0x7FFFu + ((bits >> 16) & 1u);
        p[i] = (unsigned short)(bits >> 16);
    }
}

extern "C" __global__ void fill_uniform_f16(unsigned short* p, long long n, unsigned int seed) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        unsigned short h;
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(uniform_pm1(i, seed)));
        p[i] = h;
    }
}
