#!/usr/bin/env bash
# rag_pipeline (issue 15) on one GPU at its recommended 8 streams: ours with each stage's work per stream replayed as
# a CUDA graph (graphs=true, the default: embed, retrieve, rerank and generate one graph launch on each of their two
# streams, the events between stages outside the graphs) and eager (graphs=false, every kernel launched), both
# under CUPTI (every stream must show device time), and AORTA's PyTorch counterpart (scripts/bench/aorta_workloads.py),
# taking turns for ROUNDS rounds so that a change of the host's load falls on all three. Every run of ours passes its
# correctness check (query embeddings and retrieved documents against float64, the generator's decoder against
# float64; with graphs also the replayed generator output against every stage run eagerly). Prints a table last:
# each run, then the medians and the median of the rounds' ratios to AORTA's; exit 1 on a wrong result, an idle
# stream or a failed run.
#   scripts/rag-pipeline-gpu.sh [OUT_DIR]   (from the repository root of a device host with dist/, python3, torch)
# ROUNDS (3), ITERATIONS (20, as workloads-vs-aorta-all.sh), WARMUP (30, ours) override. At most 150 s in all: no run
# starts after 120 s and each is cut off at 45 s or the 150 s mark, whichever comes first (expected ~10-15 s a run of
# ours, most of it set-up and the captures; AORTA's ~10 s).
# Measured on an H100 (2026-11-25): every row ok; 8 launches an iteration with graphs, 134 without; rag-graphs
# median ratio 1.40 (1.47, 1.24, 1.40), rag-eager 1.20.
set -u
NAME=rag-pipeline-gpu
WORKLOAD=rag_pipeline
STREAMS=8
PREFIX=rag
UNIT=queries/s
OUT=${1:-rag-pipeline-gpu-out}
BUDGET_S=150
LAST_START_S=120
RUN_LIMIT_S=45
. scripts/lib/graph_modes_rounds.sh
