// Kernels of the moe workload: token routing with a fixed expert capacity, dispatch into expert-major rows and the
// gate-weighted combine. Entries are (token, choice) pairs i = token * k + choice of the top-k gating's output.

// One warp per expert: its entries in index order get slots 0, 1, ...; slots at or beyond cap are dropped (-1), as
// in GShard's capacity rule. token_of[e * cap + s] is the token in slot s of expert e, or -1 for an empty slot.
extern "C" __global__ void moe_route(const int* experts, int* slot_of, int* token_of, int n, int k, int cap) {
    int e = blockIdx.x;
    int lane = threadIdx.x;
    int count = 0;
    for (int base = 0; base < n * k; base += 32) {
        int i = base + lane;
        bool mine = i < n * k && experts[i] == e;
        unsigned mask = __ballot_sync(0xffffffffu, mine);
        int slot = count + __popc(mask & ((1u << lane) - 1u));
        if (mine) {
            if (slot < cap) {
                slot_of[i] = slot;
                token_of[e * cap + slot] = i / k;
            } else {
                slot_of[i] = -1;
            }
        }
        count += __popc(mask);
    }
    for (int s = count + lane; s < cap; s += 32) {
        token_of[e * cap + s] = -1;
    }
}

// rows[e * cap + s][:] = x[token_of[e * cap + s]][:], zero for an empty slot.
extern "C" __global__ void moe_dispatch(const float* x, const int* token_of, float* rows, long long slots, int h) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < slots * h;
         i += (long long)gridDim.x * blockDim.x) {
        int t = token_of[i / h];
        rows[i] = t < 0 ? 0.0f : x[(long long)t * h + i % h];
    }
}

// y[t][:] = sum over the token's kept choices j of gates[t * k + j] * expert_out[experts[t * k + j] * cap + slot][:].
extern "C" __global__ void moe_combine(const float* expert_out, const int* experts, const int* slot_of,
                                       const float* gates, float* y, int n, int k, int cap, int h) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (long long)n * h;
         i += (long long)gridDim.x * blockDim.x) {
        int t = (int)(i / h);
        int c = (int)(i % h);
        float sum = 0.0f;
        for (int j = 0; j < k; j++) {
            int slot = slot_of[t * k + j];
            if (slot >= 0) {
                sum += gates[t * k + j] * expert_out[((long long)experts[t * k + j] * cap + slot) * h + c];
            }
        }
        y[i] = sum;
    }
}
