// Copies a rows x cols fp32 block into columns [offset, offset + cols) of a rows x dstCols row-major matrix:
// torch.cat(..., dim=1) of one part, and a plain copy when cols == dstCols.
extern "C" __global__ void copy_columns(const float* src, float* dst, int rows, int cols, int dstCols, int offset) {
    long n = (long) rows * cols;
    for (long i = blockIdx.x * (long) blockDim.x + threadIdx.x; i < n; i += (long) gridDim.x * blockDim.x) {
        long r = i / cols;
        long c = i % cols;
        dst[r * dstCols + offset + c] = src[i];
    }
}
