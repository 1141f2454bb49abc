// Embedding lookup with mean pooling (torch.nn.EmbeddingBag, mode "mean") over ids [bags, len], table [vocab, dim].
// Ids outside [0, vocab) are skipped rather than read or written out of bounds; the host checks ids it uploads.

// One block per bag; its threads walk the embedding dimension, so each table row is read coalesced.
extern "C" __global__ void embedding_mean_forward(const int* ids, const float* table, float* out, int len, int dim,
                                                  int vocab) {
    int bag = blockIdx.x;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) {
        float s = 0.0f;
        for (int j = 0; j < len; j++) {
            int id = ids[(long long) bag * len + j];
            if (id >= 0 && id < vocab) {
                s += table[(long long) id * dim + d];
            }
        }
        out[(long long) bag * dim + d] = s / len;
    }
}

// dtable[id] += dout[bag] / len for every occurrence: a scatter-add. Ids repeat across and within bags, so
// the adds are atomic (their order, hence the last bits of a repeated row's sum, is not fixed).
extern "C" __global__ void embedding_mean_backward(const int* ids, const float* dout, float* dtable, int len, int dim,
                                                   int vocab) {
    int bag = blockIdx.x / len;
    int id = ids[blockIdx.x];
    if (id < 0 || id >= vocab) {
        return;
    }
    float inv = 1.0f / len;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) {
        atomicAdd(&dtable[(long long) id * dim + d], dout[(long long) bag * dim + d] * inv);
    }
}
