// Kernels of rag_pipeline that the model module has no op for.

// Each row of x [rows, d] divided by its L2 norm (torch.nn.functional.normalize, eps 1e-12); one warp per row.
extern "C" __global__ void l2_normalize_rows(float* x, int rows, int d) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    float* r = x + (long long)row * d;
    float sum = 0.0f;
    for (int i = lane; i < d; i += 32) {
        sum += r[i] * r[i];
    }
    for (int off = 16; off > 0; off /= 2) {
        sum += __shfl_xor_sync(0xffffffffu, sum, off);
    }
    float scale = 1.0f / fmaxf(sqrtf(sum), 1e-12f);
    for (int i = lane; i < d; i += 32) {
        r[i] *= scale;
    }
}

// pairs[q * k + j] = [query[q] | docs[top[q * k + j]]], each part d wide: the reranker's input.
extern "C" __global__ void rerank_pairs(const float* query, const float* docs, const int* top, float* pairs,
                                        int queries, int k, int d) {
    long long total = (long long)queries * k * 2 * d;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        int col = (int)(i % (2 * d));
        long long pair = i / (2 * d);
        int q = (int)(pair / k);
        pairs[i] = col < d ? query[(long long)q * d + col] : docs[(long long)top[pair] * d + col - d];
    }
}

// The generator's token ids per query: its own query_len ids, then doc_len tokens of each of its chosen documents
// (chosen[q * c + r] indexes the query's retrieved top[q * k + .]).
extern "C" __global__ void context_ids(const int* query_ids, const int* doc_tokens, const int* top, const int* chosen,
                                       int* ids, int queries, int query_len, int k, int c, int doc_len) {
    int t_len = query_len + c * doc_len;
    long long total = (long long)queries * t_len;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        int q = (int)(i / t_len);
        int t = (int)(i % t_len);
        if (t < query_len) {
            ids[i] = query_ids[q * query_len + t];
        } else {
            int r = (t - query_len) / doc_len;
            int doc = top[q * k + chosen[q * c + r]];
            ids[i] = doc_tokens[doc * doc_len + (t - query_len) % doc_len];
        }
    }
}
