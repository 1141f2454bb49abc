// Kernels of the launch_overhead workload: residual codebook assignment (a port of a vGPU hook's
// slowdown test). Column-major layouts, so that one cuBLAS GEMM without transposes gives the dot products:
//   points   x: D x N, point i's coordinates contiguous:        x[i*D + j]
//   codebook c: K x D, coordinate j of centroid k:              c[j*K + k]
//   dots     g = c·x: K x N, point i's K dot products contiguous: g[i*K + k] = c_k · x_i
// distances_from_dots turns g into squared distances in place. Ties always go to the lowest index,
// so the host model of the tests (launchoverhead/HostCodebookDevice) computes the same choices.

#define INF_F __int_as_float(0x7f800000)

// Start of a step: the residual is the batch again, the quantized sum is zero.
extern "C" __global__ void begin_step(float* residual, const float* batch, float* quantized, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        residual[i] = batch[i];
        quantized[i] = 0.0f;
    }
}

extern "C" __global__ void point_norms(const float* x, float* norms, int n, int d) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s = 0.0f;
        for (int j = 0; j < d; j++) {
            float v = x[(long long)i * d + j];
            s += v * v;
        }
        norms[i] = s;
    }
}

extern "C" __global__ void centroid_norms(const float* c, float* norms, int k, int d) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < k) {
        float s = 0.0f;
        for (int j = 0; j < d; j++) {
            float v = c[(long long)j * k + i];
            s += v * v;
        }
        norms[i] = s;
    }
}

// ||x_i||^2 + ||c_k||^2 - 2 c_k·x_i, in place over the K x N dot products.
extern "C" __global__ void distances_from_dots(float* g, const float* pointNorms, const float* centroidNorms,
                                               int k, int n) {
    long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (idx < (long long)k * n) {
        int i = (int)(idx / k);
        int c = (int)(idx % k);
        g[idx] = pointNorms[i] + centroidNorms[c] - 2.0f * g[idx];
    }
}

// Keeps the smaller (value, index) pair; equal values go to the lower index.
__device__ __forceinline__ void keep_min(float& v, int& at, float ov, int oat) {
    if (ov < v || (ov == v && oat < at)) {
        v = ov;
        at = oat;
    }
}

// Block-wide minimum of (v, at) over blockDim.x <= 1024 threads; the result is valid in thread 0.
__device__ void block_min(float& v, int& at) {
    __shared__ float sv[1024];
    __shared__ int sat[1024];
    sv[threadIdx.x] = v;
    sat[threadIdx.x] = at;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            float ov = sv[threadIdx.x + stride];
            int oat = sat[threadIdx.x + stride];
            float mv = sv[threadIdx.x];
            int mat = sat[threadIdx.x];
            keep_min(mv, mat, ov, oat);
            sv[threadIdx.x] = mv;
            sat[threadIdx.x] = mat;
        }
        __syncthreads();
    }
    v = sv[0];
    at = sat[0];
    __syncthreads();
}

// One block (power-of-two threads) per point: the nearest centroid.
extern "C" __global__ void argmin_rows(const float* dist, int* assign, int k, int n) {
    int i = blockIdx.x;
    if (i >= n) {
        return;
    }
    float v = INF_F;
    int at = 0x7fffffff;
    for (int c = threadIdx.x; c < k; c += blockDim.x) {
        keep_min(v, at, dist[(long long)i * k + c], c);
    }
    block_min(v, at);
    if (threadIdx.x == 0) {
        assign[i] = at;
    }
}

// The gather: each point's assigned centroid.
extern "C" __global__ void gather_centroids(const float* c, const int* assign, float* gathered, int n, int d, int k) {
    long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (idx < (long long)n * d) {
        int i = (int)(idx / d);
        int j = (int)(idx % d);
        gathered[idx] = c[(long long)j * k + assign[i]];
    }
}

// The residual update: what is left to quantize, and what was quantized so far.
extern "C" __global__ void residual_update(float* residual, float* quantized, const float* gathered, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        residual[i] -= gathered[i];
        quantized[i] += gathered[i];
    }
}

// Balanced assignment, once per stage: no row is assigned yet.
extern "C" __global__ void reset_mask(int* assigned, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assigned[i] = 0;
    }
}

// Balanced, per centroid 1/6: the distances of all points to centroid `centroid` (a strided column).
extern "C" __global__ void copy_column(const float* dist, float* column, int centroid, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        column[i] = dist[(long long)i * k + centroid];
    }
}

// Balanced, per centroid 2/6: the unassigned rows, in increasing order, and their count; one block of
// power-of-two threads (an ordered stream compaction, what a boolean mask index computes). The host reads
// the count back: the next launches are sized by it.
extern "C" __global__ void compact_unassigned(const int* assigned, int* candidates, int* count, int n) {
    __shared__ int scan[1024];
    int base = 0;
    for (int start = 0; start < n; start += blockDim.x) {
        int i = start + threadIdx.x;
        int keep = (i < n && assigned[i] == 0) ? 1 : 0;
        scan[threadIdx.x] = keep;
        __syncthreads();
        for (int off = 1; off < blockDim.x; off <<= 1) {  // inclusive Hillis-Steele scan
            int add = threadIdx.x >= off ? scan[threadIdx.x - off] : 0;
            __syncthreads();
            scan[threadIdx.x] += add;
            __syncthreads();
        }
        if (keep) {
            candidates[base + scan[threadIdx.x] - 1] = i;
        }
        int total = scan[blockDim.x - 1];
        __syncthreads();
        base += total;
    }
    if (threadIdx.x == 0) {
        count[0] = base;
    }
}

// Balanced, per centroid 3/6: the column's values at the unassigned rows (the masked rows drop out).
extern "C" __global__ void gather_candidates(const float* column, const int* candidates, float* values, int count) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < count) {
        values[j] = column[candidates[j]];
    }
}

// Balanced, per centroid 4/6: the w nearest candidates (one block of power-of-two threads); equal
// distances go to the lower row. Consumes `values` (chosen entries become +inf).
extern "C" __global__ void select_smallest(float* values, const int* candidates, int count, int w, int* chosen) {
    for (int r = 0; r < w; r++) {
        float v = INF_F;
        int at = 0x7fffffff;
        for (int j = threadIdx.x; j < count; j += blockDim.x) {
            keep_min(v, at, values[j], j);
        }
        block_min(v, at);
        if (threadIdx.x == 0) {
            chosen[r] = at < count ? candidates[at] : -1;
            if (at < count) {
                values[at] = INF_F;
            }
        }
        __syncthreads();
    }
}

// Balanced, per centroid 5/6: the chosen rows belong to `centroid`.
extern "C" __global__ void write_assignments(const int* chosen, int w, int* assign, int centroid) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < w && chosen[r] >= 0) {
        assign[chosen[r]] = centroid;
    }
}

// Balanced, per centroid 6/6: the chosen rows leave the pool.
extern "C" __global__ void update_mask(const int* chosen, int w, int* assigned) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < w && chosen[r] >= 0) {
        assigned[chosen[r]] = 1;
    }
}
