// Kernels of comms_compute_overlap that are not collectives.

// Sets n floats to value: the known inputs of the collectives' correctness check.
extern "C" __global__ void fill_value_f32(float* p, long long n, float value) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        p[i] = value;
    }
}

// Stands in for a collective in a single process: a device-to-device copy of the same bytes (n16 units of
// 16 bytes), as a kernel so that it is classified as communication by name, like NCCL's kernels.
extern "C" __global__ void simulated_collective_copy(int4* dst, const int4* src, long long n16) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n16;
         i += (long long)gridDim.x * blockDim.x) {
        dst[i] = src[i];
    }
}
