// Kernels of `aorta check`: an elementwise kernel, a two-pass sum reduction, a two-parameter launch probe
// and a deterministic random fill (so nothing is ever tested or timed on zeros).

extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        y[i] = a * x[i] + y[i];
    }
}

// Each block writes the sum of its grid-stride share of x to partial[blockIdx.x]; a second launch with one
// block sums the partials. blockDim.x must be 256.
extern "C" __global__ void reduce_sum(const float* x, float* partial, int n) {
    __shared__ float s[256];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        acc += x[i];
    }
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            s[threadIdx.x] += s[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = s[0];
    }
}

// The launch-cost probe: two parameters, no work unless n < 0 (so the parameters are really passed).
extern "C" __global__ void launch_probe(float* p, int n) {
    if (n < 0 && threadIdx.x == 0) {
        p[0] = (float) n;
    }
}

__device__ unsigned int mix(unsigned int x) {
    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
    return x;
}

// Uniform values in [-1, 1) from a hash of (seed, index), as bf16 (raw 16-bit patterns).
extern "C" __global__ void fill_random_bf16(unsigned short* out, long long n, unsigned int seed) {
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        float v = (mix((unsigned int) i * 2654435761U ^ seed) >> 8) * (2.0f / 16777216.0f) - 1.0f;
        unsigned int bits = __float_as_uint(v);
        out[i] = (unsigned short) ((bits + 0x7fffU + ((bits >> 16) & 1U)) >> 16);
    }
}

// Uniform values in [-1, 1) as fp32.
extern "C" __global__ void fill_random_f32(float* out, long long n, unsigned int seed) {
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        out[i] = (mix((unsigned int) i * 2654435761U ^ seed) >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
}
