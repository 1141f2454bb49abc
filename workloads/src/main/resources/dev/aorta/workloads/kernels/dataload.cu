// Kernel of async_dataload: the preprocessing of a batch of images [n, 3, h, w] with values in [0, 1).

// y = (x - mean[c]) / std[c] with ImageNet's statistics, mirrored horizontally for the images whose index is odd
// (a fixed pattern standing in for a random flip, so that the result can be checked).
extern "C" __global__ void normalize_flip(const float* x, float* y, int n, int h, int w) {
    const float mean[3] = {0.485f, 0.456f, 0.406f};
    const float stdev[3] = {0.229f, 0.224f, 0.225f};
    long long total = (long long)n * 3 * h * w;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        int col = (int)(i % w);
        long long plane = i / ((long long)h * w);
        int c = (int)(plane % 3);
        int image = (int)(plane / 3);
        long long src = (image & 1) ? i - col + (w - 1 - col) : i;
        y[i] = (x[src] - mean[c]) / stdev[c];
    }
}
