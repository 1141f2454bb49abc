// Top-k gating with renormalisation (mixture-of-experts routing) on logits [rows, experts]: per row the k
// largest logits (ties to the lower expert index) and gates = softmax over those k only. One warp per row;
// k rounds of a warp arg-max over the not yet taken experts (k is small: a handful of experts per token).

#define NEG_INF __int_as_float(0xff800000)
#define MAX_K 32

// (value, index) of the larger; on equal values the lower index wins. Taken experts come in as -inf with
// index -1 and lose to every real one.
__device__ __forceinline__ void better(float& v, int& i, float v2, int i2) {
    if (i < 0 || (i2 >= 0 && (v2 > v || (v2 == v && i2 < i)))) {
        v = v2;
        i = i2;
    }
}

extern "C" __global__ void topk_gating_forward(const float* x, int* experts, float* gates, int rows, int e, int k) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    const float* xr = x + (long long) row * e;
    int chosen[MAX_K];
    float value[MAX_K];
    for (int j = 0; j < k; j++) {
        float v = NEG_INF;
        int idx = -1;
        for (int c = lane; c < e; c += 32) {
            bool taken = false;
            for (int q = 0; q < j; q++) {
                taken |= chosen[q] == c;
            }
            if (!taken) {
                better(v, idx, xr[c], c);
            }
        }
        for (int o = 16; o > 0; o >>= 1) {
            float v2 = __shfl_xor_sync(0xffffffffu, v, o);
            int i2 = __shfl_xor_sync(0xffffffffu, idx, o);
            better(v, idx, v2, i2);
        }
        chosen[j] = idx;
        value[j] = v;
    }
    // softmax over the k chosen logits; value[0] is their maximum
    float sum = 0.0f;
    for (int j = 0; j < k; j++) {
        sum += expf(value[j] - value[0]);
    }
    for (int j = lane; j < k; j += 32) {
        experts[(long long) row * k + j] = chosen[j];
        gates[(long long) row * k + j] = expf(value[j] - value[0]) / sum;
    }
}

// dlogits [rows, experts]: g_j * (dg_j - sum_i dg_i g_i) at the chosen experts, zero elsewhere (overwritten).
extern "C" __global__ void topk_gating_backward(const int* experts, const float* gates, const float* dgates,
                                                float* dx, int rows, int e, int k) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    float* dxr = dx + (long long) row * e;
    for (int c = lane; c < e; c += 32) {
        dxr[c] = 0.0f;
    }
    float dot = 0.0f;
    for (int j = 0; j < k; j++) {
        dot += dgates[(long long) row * k + j] * gates[(long long) row * k + j];
    }
    __syncwarp();
    for (int j = lane; j < k; j += 32) {
        long long i = (long long) row * k + j;
        dxr[experts[i]] = gates[i] * (dgates[i] - dot);
    }
}
