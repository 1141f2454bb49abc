// Runs kernels/codebook.cu under cuda_emulation.h through the argmin and balanced sequences of CodebookSteps and
// compares every intermediate result with plain loops. Prints "OK" or the first problems; exit code 1 on any.
// The single-block kernels run with 32 threads here, so that the compaction covers several chunks.
#include "codebook.cu"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

static const int K = 8, D = 5, N = 96, S = 2, W = N / K, SINGLE = 32;
static int problems = 0;

static void problem(const char* what, int a, int b) {
    if (problems++ < 5) std::printf("%s (%d, %d)\n", what, a, b);
}

static unsigned blocks(long elements) { return (unsigned)((elements + 255) / 256); }

int main() {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> uniform(-1, 1);
    std::vector<float> batch(N * D), res(N * D), q(N * D), gathered(N * D), pn(N), cn(K), dist(K * N), col(N), vals(N);
    std::vector<std::vector<float>> codebook(S, std::vector<float>(K * D));
    for (auto& v : batch) v = uniform(rng);
    for (int s = 0; s < S; s++) for (auto& v : codebook[s]) v = uniform(rng) * std::ldexp(1.0f, -s);
    std::vector<int> assign(N), assigned(N), candidates(N), chosen(W), count(1);
    for (int balanced = 0; balanced < 2; balanced++) {
        launch(blocks(N * D), 256, [&] { begin_step(res.data(), batch.data(), q.data(), N * D); });
        for (int s = 0; s < S; s++) {
            const float* c = codebook[s].data();
            launch(blocks(N), 256, [&] { point_norms(res.data(), pn.data(), N, D); });
            launch(blocks(K), 256, [&] { centroid_norms(c, cn.data(), K, D); });
            for (int i = 0; i < N; i++)  // the GEMM: column-major K x N = (K x D) . (D x N)
                for (int k = 0; k < K; k++) {
                    float dot = 0;
                    for (int j = 0; j < D; j++) dot += c[j * K + k] * res[i * D + j];
                    dist[i * K + k] = dot;
                }
            launch(blocks((long)K * N), 256, [&] { distances_from_dots(dist.data(), pn.data(), cn.data(), K, N); });
            for (int i = 0; i < N; i++)
                for (int k = 0; k < K; k++) {
                    double d = 0;
                    for (int j = 0; j < D; j++) d += std::pow(res[i * D + j] - c[j * K + k], 2);
                    if (std::fabs(d - dist[i * K + k]) > 1e-4) problem("distance wrong (point, centroid)", i, k);
                }
            if (!balanced) {
                launch(N, 256, [&] { argmin_rows(dist.data(), assign.data(), K, N); });
                for (int i = 0; i < N; i++) {
                    int nearest = (int)(std::min_element(&dist[i * K], &dist[(i + 1) * K]) - &dist[i * K]);
                    if (assign[i] != nearest) problem("argmin wrong (point, nearest)", i, nearest);
                }
            } else {
                std::vector<int> expected(N, -1);  // the greedy: centroids in order, each its W nearest free points
                for (int k = 0; k < K; k++)
                    for (int r = 0; r < W; r++) {
                        int best = -1;
                        for (int i = 0; i < N; i++)
                            if (expected[i] < 0 && (best < 0 || dist[i * K + k] < dist[best * K + k])) best = i;
                        expected[best] = k;
                    }
                launch(blocks(N), 256, [&] { reset_mask(assigned.data(), N); });
                for (int k = 0; k < K; k++) {
                    launch(blocks(N), 256, [&] { copy_column(dist.data(), col.data(), k, K, N); });
                    launch(1, SINGLE, [&] { compact_unassigned(assigned.data(), candidates.data(), count.data(), N); });
                    int n = count[0];
                    if (n != N - k * W) problem("count wrong (centroid, count)", k, n);
                    for (int j = 0; j < n; j++)
                        if (assigned[candidates[j]] || (j > 0 && candidates[j] <= candidates[j - 1]))
                            problem("compaction wrong (centroid, position)", k, j);
                    launch(blocks(N), 256, [&] { gather_candidates(col.data(), candidates.data(), vals.data(), n); });
                    launch(1, SINGLE, [&] { select_smallest(vals.data(), candidates.data(), n, W, chosen.data()); });
                    launch(blocks(W), 256, [&] { write_assignments(chosen.data(), W, assign.data(), k); });
                    launch(blocks(W), 256, [&] { update_mask(chosen.data(), W, assigned.data()); });
                }
                for (int i = 0; i < N; i++)
                    if (assign[i] != expected[i]) problem("balanced wrong (point, expected centroid)", i, expected[i]);
            }
            launch(blocks(N * D), 256, [&] { gather_centroids(c, assign.data(), gathered.data(), N, D, K); });
            std::vector<float> before = res;
            launch(blocks(N * D), 256, [&] { residual_update(res.data(), q.data(), gathered.data(), N * D); });
            for (int i = 0; i < N; i++)
                for (int j = 0; j < D; j++)
                    if (gathered[i * D + j] != c[j * K + assign[i]] || res[i * D + j] != before[i * D + j] - gathered[i * D + j])
                        problem("gather or residual update wrong (point, coordinate)", i, j);
        }
        for (int i = 0; i < N * D; i++)
            if (std::fabs(q[i] + res[i] - batch[i]) > 1e-5) problem("quantized + residual != batch (element, 0)", i, 0);
    }
    std::printf(problems ? "FAIL: %d problems\n" : "OK\n", problems);
    return problems ? 1 : 0;
}
