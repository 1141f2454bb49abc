#!/usr/bin/env bash
# speculative_decode (issue 15) on one GPU at its recommended 6 streams: ours with each request's work per stream
# replayed as CUDA graphs (graphs=true, the default: the draft prefill, main prefill, K - 1 draft steps and verify
# one graph launch each, the accept kernel one launch) and eager (graphs=false, every kernel launched), both under
# CUPTI (every stream must show device time), and AORTA's PyTorch counterpart (scripts/bench/aorta_workloads.py,
# which assumes 70% acceptance: int(4 * 0.7) = 2 tokens per iteration), taking turns for ROUNDS rounds so that a
# change of the host's load falls on all three. Every run of ours passes its correctness check (both decoders
# against float64, the device's accepted count against the tokens read back; with graphs also a replayed round's
# verify logits against the same round run eagerly). Prints a table last: each run, then the medians and the median
# of the rounds' ratios to AORTA's; exit 1 on a wrong result, an idle stream or a failed run.
#   scripts/speculative-decode-gpu.sh [OUT_DIR]   (from the repository root of a device host with dist/, python3, torch)
# ROUNDS (3), ITERATIONS (20, as workloads-vs-aorta-all.sh), WARMUP (30, ours) override. About 2-3 minutes on an
# H100 (a run of ours ~15 s, most of it the models' set-up; AORTA's ~10 s); no run starts after 170 s (each at most 60 s).
# Measured on an H100 (2026-11-25): every row ok; 10 launches an iteration with graphs, 998 without; tokens per
# round 1.00 (random weights rarely agree: acceptance near 0; AORTA's counterpart claims 2 per iteration for 1
# request, ours measures about 1 per request for 2); spec-graphs median ratio 1.30 (1.79, 1.07, 1.30), spec-eager 0.80.
set -u
NAME=speculative-decode-gpu
WORKLOAD=speculative_decode
STREAMS=6
PREFIX=spec
UNIT=tokens/s
OUT=${1:-speculative-decode-gpu-out}
BUDGET_S=230
LAST_START_S=170
RUN_LIMIT_S=60
EXTRA_HEADER="tok/rnd acc"
EXTRA_EXPR="'%.2f %.2f' % (r['workload_results']['tokens_per_round'], r['workload_results']['acceptance_rate'])"
EXTRA_THEIRS="(0.7 assumed)"
. scripts/lib/graph_modes_rounds.sh
