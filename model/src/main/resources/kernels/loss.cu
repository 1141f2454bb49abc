// Weighted binary cross-entropy on logits (torch.nn.BCEWithLogitsLoss with weight and pos_weight of shape
// [cols], reduction "mean"): l = w * (p * y * softplus(-x) + (1 - y) * softplus(x)).

__device__ __forceinline__ float softplus(float x) {
    return fmaxf(x, 0.0f) + log1pf(expf(-fabsf(x)));
}

__device__ __forceinline__ float sigmoid(float x) {
    return x >= 0.0f ? 1.0f / (1.0f + expf(-x)) : expf(x) / (1.0f + expf(x));
}

// The mean loss in loss[0], from one block of 256 threads: a fixed summation order, so the loss is the same
// bits every run. (Loss tensors are small next to the rest of a step; one block is enough.)
extern "C" __global__ void bce_forward(const float* x, const float* y, const float* w, const float* pw, float* loss,
                                       long long n, int cols) {
    __shared__ float part[256];
    float s = 0.0f;
    for (long long i = threadIdx.x; i < n; i += blockDim.x) {
        int c = (int) (i % cols);
        float p = pw != nullptr ? pw[c] : 1.0f;
        float l = p * y[i] * softplus(-x[i]) + (1.0f - y[i]) * softplus(x[i]);
        s += (w != nullptr ? w[c] : 1.0f) * l;
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
        loss[0] = part[0] / (float) n;
    }
}

// dx = dloss / n * w * (p * y * (sigmoid(x) - 1) + (1 - y) * sigmoid(x)).
extern "C" __global__ void bce_backward(const float* x, const float* y, const float* w, const float* pw, float* dx,
                                        long long n, int cols, float dloss) {
    float scale = dloss / (float) n;
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        int c = (int) (i % cols);
        float s = sigmoid(x[i]);
        float p = pw != nullptr ? pw[c] : 1.0f;
        float g = p * y[i] * (s - 1.0f) + (1.0f - y[i]) * s;
        dx[i] = scale * (w != nullptr ? w[c] : 1.0f) * g;
    }
}

// Cross-entropy on logits x [rows, classes] with integer targets (torch.nn.functional.cross_entropy,
// reduction "mean", ignore_index): loss = mean over the rows whose target is not ignore of lse_r - x[r, t_r].
// Three kernels: one block per row for its logsumexp (kept for the backward pass) and loss term, one block
// for the mean and the count of counted rows (both on the device, so the backward pass needs no host sync).

__device__ __forceinline__ float block_reduce(float v, float* part, bool max) {
    part[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            float o = part[threadIdx.x + stride];
            part[threadIdx.x] = max ? fmaxf(part[threadIdx.x], o) : part[threadIdx.x] + o;
        }
        __syncthreads();
    }
    float r = part[0];
    __syncthreads();
    return r;
}

// blockDim.x must be 256. rowLoss[r] = lse_r - x[r, t_r], or 0 for an ignored row; lse[r] always.
extern "C" __global__ void cross_entropy_rows(const float* x, const int* target, float* lse, float* rowLoss,
                                              int classes, int ignoreIndex) {
    __shared__ float part[256];
    int r = blockIdx.x;
    const float* xr = x + (long long) r * classes;
    float m = __int_as_float(0xff800000);
    for (int c = threadIdx.x; c < classes; c += blockDim.x) {
        m = fmaxf(m, xr[c]);
    }
    m = block_reduce(m, part, true);
    float s = 0.0f;
    for (int c = threadIdx.x; c < classes; c += blockDim.x) {
        s += expf(xr[c] - m);
    }
    s = block_reduce(s, part, false);
    if (threadIdx.x == 0) {
        float l = m + logf(s);
        lse[r] = l;
        int t = target[r];
        rowLoss[r] = t == ignoreIndex || t < 0 || t >= classes ? 0.0f : l - xr[t];
    }
}

// stats[0] = mean of the counted rows' losses, stats[1] = how many were counted; one block of 256 threads,
// fixed summation order.
extern "C" __global__ void cross_entropy_mean(const float* rowLoss, const int* target, float* stats, int rows,
                                              int classes, int ignoreIndex) {
    __shared__ float part[256];
    float s = 0.0f;
    float n = 0.0f;
    for (int r = threadIdx.x; r < rows; r += blockDim.x) {
        int t = target[r];
        if (t != ignoreIndex && t >= 0 && t < classes) {
            s += rowLoss[r];
            n += 1.0f;
        }
    }
    s = block_reduce(s, part, false);
    n = block_reduce(n, part, false);
    if (threadIdx.x == 0) {
        stats[0] = n > 0.0f ? s / n : __int_as_float(0x7fc00000); // torch: NaN when every row is ignored
        stats[1] = n;
    }
}

// dx = dloss * (softmax(x) - onehot(t)) / counted on counted rows, 0 on ignored ones.
extern "C" __global__ void cross_entropy_backward(const float* x, const int* target, const float* lse,
                                                  const float* stats, float* dx, long long n, int classes,
                                                  int ignoreIndex, float dloss) {
    float scale = dloss / stats[1];
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        long long r = i / classes;
        int c = (int) (i % classes);
        int t = target[r];
        bool counted = t != ignoreIndex && t >= 0 && t < classes;
        dx[i] = counted ? scale * (expf(x[i] - lse[r]) - (c == t ? 1.0f : 0.0f)) : 0.0f;
    }
}
