// Kernels of speculative_decode: greedy token choice and the acceptance of draft tokens.

// out[r] = the index of the largest of logits[r][0..vocab) (the lowest index among equal values); one block per row.
extern "C" __global__ void argmax_rows(const float* logits, int vocab, int* out) {
    __shared__ float best[256];
    __shared__ int where[256];
    const float* row = logits + (long long)blockIdx.x * vocab;
    float b = __int_as_float(0xff800000);  // -infinity (NVRTC has no INFINITY macro)
    int w = 0x7fffffff;
    for (int i = threadIdx.x; i < vocab; i += blockDim.x) {
        float v = row[i];
        if (v > b || (v == b && i < w)) {
            b = v;
            w = i;
        }
    }
    best[threadIdx.x] = b;
    where[threadIdx.x] = w;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            float v = best[threadIdx.x + stride];
            int i = where[threadIdx.x + stride];
            if (v > best[threadIdx.x] || (v == best[threadIdx.x] && i < where[threadIdx.x])) {
                best[threadIdx.x] = v;
                where[threadIdx.x] = i;
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[blockIdx.x] = where[0];
    }
}

// The draft's k tokens against the main model's k + 1 greedy predictions: the accepted prefix is the draft tokens
// that equal the main model's prediction at their position; the main model's next prediction is always gained.
// totals[0] += accepted + 1 (tokens produced), totals[1] += accepted, totals[2] = accepted of this round.
extern "C" __global__ void spec_accept(const int* draft, const int* predicted, int k, int* totals) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int n = 0;
        while (n < k && draft[n] == predicted[n]) {
            n++;
        }
        totals[0] += n + 1;
        totals[1] += n;
        totals[2] = n;
    }
}
