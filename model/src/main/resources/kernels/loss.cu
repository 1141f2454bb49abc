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
