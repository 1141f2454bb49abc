// fp32 -> bf16 / fp16 rounding for the autocast GEMM operands: round to nearest even, as torch's
// .to(bfloat16) / .half(), and back (exact); the PTX cvt instructions need no headers under NVRTC. Shared by
// every kernel file that reads or writes 16-bit copies (Kernels.source inlines this header).

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

// half = 1: fp16, else bf16.
__device__ __forceinline__ unsigned short round16(float f, int half) {
    return half ? to_f16(f) : to_bf16(f);
}

// bf16 / fp16 -> fp32, exact (half = 1: fp16, else bf16).
__device__ __forceinline__ float widen16(unsigned short h, int half) {
    if (half) {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
        return f;
    }
    return __uint_as_float(((unsigned) h) << 16);
}
