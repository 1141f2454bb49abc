#!/usr/bin/env bash
# Multi-GPU acceptance (issue 18) on every GPU of one host (2 or 4), from a built dist/:
#   ./build -q -o package -DskipTests && scripts/pack-device.sh      # here
#   scripts/multigpu-acceptance.sh [OUT_DIR]                         # on the GPU host, from the project root
# SECTIONS picks what runs (default "trainer profiled busbw workloads"; each section stays under 10 minutes):
#   trainer    per-step losses of full_shard, shard_grad_op, no_shard, hybrid_shard and ddp over N ranks against one
#              GPU at the same global batch (fp32, dropout 0, 50 steps); step time, overlap and exposed
#              communication against AORTA's own trainer (train.py from .aorta-ref/, under torchrun) at
#              default.yaml and the mi350 stress shape; kill one rank mid-step.
#   profiled   both trainers with their profilers on, for `aorta analyze` on both traces; AORTA's trainer without
#              its launch script's CUDA_DEVICE_MAX_CONNECTIONS=1.
#   busbw      the trainer's all-gather and reduce-scatter bus bandwidth from device time against a plain NCCL loop
#              of the same sizes.
#   workloads  all-reduce bus bandwidth of comms_compute_overlap against torch.distributed (3 alternating rounds);
#              fsdp_tp, moe, activation_ckpt, grad_accum over N ranks with real NCCL; launch_overhead's
#              all_reduce and combined patterns with and without the agent.
# Also: BUSBW_ROUNDS (3), WORKLOADS ("fsdp_tp moe activation_ckpt grad_accum"), LO_RUNS (A/B pairs, 4) and
# LO_SECONDS (per pattern, 4) narrow or widen the workloads section.
# Needs python3 with torch and torchrun on PATH; .aorta-ref/ holds AORTA's train.py, src/ and config/ (not part of
# this repository: `git archive` of github.com/amd-vivekag/aorta 9e772da). A short table is printed last and kept
# in OUT_DIR/table.txt; exit code 1 when a check failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -f .device/prelude.sh ] && . .device/prelude.sh
export NCCL_NVLS_ENABLE=0   # never NVLink multicast on the shared hosts
aorta=$root/dist/bin/aorta
out=$(mkdir -p "${1:-${OUT:-$root/multigpu-acceptance-out}}" && cd "${1:-${OUT:-$root/multigpu-acceptance-out}}" && pwd)
sections=${SECTIONS:-trainer profiled busbw workloads}
[ -x "$aorta" ] || { echo "multigpu-acceptance: $aorta not found; run ./build package -DskipTests first" >&2; exit 2; }
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$n" -ge 2 ] || { echo "multigpu-acceptance: needs 2 or more GPUs, nvidia-smi lists $n" >&2; exit 2; }
port=$(( 29600 + RANDOM % 2000 ))
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv > "$out/nvidia-smi.csv" 2>&1
nvidia-smi topo -m > "$out/topo.txt" 2>&1
echo "== $n GPUs; sections: $sections; results in $out"

step() {  # step NAME LIMIT_S command...: logs to $out/NAME.log, the exit code to $out/NAME.rc
  local name=$1 limit=$2; shift 2
  port=$((port + 7))
  local t0=$SECONDS
  timeout -k 10 "$limit" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  echo "$rc" > "$out/$name.rc"
  echo "== $name: exit $rc after $((SECONDS - t0)) s"
  [ "$rc" = 0 ] || tail -n 8 "$out/$name.log"
}
launch() { echo "$aorta" launch --nproc-per-node "$1" --master-port "$port" --timeout "$2" --; }
has() { case " $sections " in *" $1 "*) return 0 ;; esac; return 1; }

if has trainer; then
  # 1. Exactness: one GPU with the global batch against N ranks with a share each (fp32, TF32 off, no dropout)
  global=16
  exact=(--config config/default.yaml --override training.max_steps=50 training.log_interval=25
         training.mixed_precision=none model.dropout=0)
  step exact-single 120 env -u RANK -u WORLD_SIZE -u AORTA_LAUNCHER "$aorta" train "${exact[@]}" \
    training.batch_size=$global training.output_dir="$out/exact-single"
  for mode in full_shard shard_grad_op no_shard hybrid_shard ddp; do
    extra=fsdp.sharding_strategy=$mode
    [ "$mode" = ddp ] && extra=distributed.mode=ddp
    [ "$mode" = hybrid_shard ] && extra="fsdp.sharding_strategy=hybrid_shard fsdp.hybrid_shard_gpus_per_node=$((n / 2))"
    step "exact-$mode" 150 $(launch "$n" 140) train "${exact[@]}" training.batch_size=$((global / n)) \
      training.output_dir="$out/exact-$mode" $extra
  done

  # 2. Speed, overlap and exposed communication, ours and AORTA's trainer on the same GPUs at the same shapes.
  #    The stress shape is AORTA's config/mi350_overlap_stress.yaml; its gradient_accumulation (4) is parsed and
  #    unused there, so ours runs 1 micro-batch of 32 as AORTA does; AORTA's profiler is off for the timed runs.
  speed_steps=60
  step ours-default 180 $(launch "$n" 170) train --config config/default.yaml --override \
    training.max_steps=$speed_steps training.log_interval=20 training.output_dir="$out/ours-default"
  step ours-stress 240 $(launch "$n" 230) train --config config/mi350_overlap_stress.yaml --override \
    training.max_steps=$speed_steps training.log_interval=20 training.output_dir="$out/ours-stress"
  if [ -f .aorta-ref/train.py ]; then
    for shape in default:default.yaml stress:mi350_overlap_stress.yaml; do
      step "aorta-${shape%%:*}" 300 env -C .aorta-ref PYTHONPATH=src CUDA_DEVICE_MAX_CONNECTIONS=1 \
        torchrun --standalone --nproc-per-node "$n" train.py --config "config/${shape#*:}" --override \
        training.max_steps=$speed_steps training.log_interval=20 profiling.enabled=false \
        training.output_dir="$out/aorta-${shape%%:*}"
    done
  else
    echo "== .aorta-ref/train.py missing: AORTA's trainer is not run"
  fi

  # AORTA's injected all-reduce + copy stress, level 3: at least 3 x 3 + 1 = 10 all-reduces a step on allreduce
  step ours-inject 180 $(launch "$n" 170) train --config config/default.yaml --override training.max_steps=40 \
    training.log_interval=20 training.inject_allreduce_copies=true training.allreduce_stress_level=3 \
    training.output_dir="$out/ours-inject"

  # 3. Kill rank 1 mid-step: the launcher names it, every rank is gone within 10 s, every JSONL line is whole
  port=$((port + 7))
  rm -rf "$out/kill"
  "$aorta" launch --nproc-per-node "$n" --master-port "$port" -- train --config config/mi350_overlap_stress.yaml \
    --override training.max_steps=100000 training.log_interval=50 training.output_dir="$out/kill" \
    > "$out/kill.log" 2>&1 &
  launcher=$!
  victim=""
  for _ in $(seq 1 240); do   # until rank 1 has written 20 steps (two minutes at most)
    sleep 0.5
    lines=$(cat "$out/kill/rank_01_metrics.jsonl" 2>/dev/null | wc -l)
    [ "$lines" -ge 20 ] && break
  done
  ranks=$(pgrep -P "$launcher" | tr '\n' ' ')
  for p in $ranks; do tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx 'RANK=1' && victim=$p; done
  if [ -n "$victim" ]; then
    sleep 0.013   # somewhere inside a step, not at its edge
    kill -9 "$victim"; killed=$(date +%s.%N)
    for _ in $(seq 1 300); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.05; done
    alive=0; for p in $ranks; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
    gone=$(python3 -c "import time; print('%.2f' % (time.time() - $killed))")
    wait "$launcher"; lrc=$?
    echo "launcher rc $lrc, $alive rank processes alive, $gone s after the kill" > "$out/kill.result"
    grep '^aorta launch:' "$out/kill.log" >> "$out/kill.result"
    for p in $ranks; do kill -9 "$p" 2>/dev/null; done
  else
    echo "rank 1 never started (see kill.log)" > "$out/kill.result"; kill "$launcher" 2>/dev/null
  fi
  cat "$out/kill.result"
fi

if has profiled; then
  # 4. both trainers with their profilers on (torch.profiler's kineto trace for AORTA, our CUPTI trace and event
  #    JSONL), for `aorta analyze` on both with one definition of overlap; and AORTA's default shape once more
  #    without its launch script's CUDA_DEVICE_MAX_CONNECTIONS=1 (torch's default connections)
  if [ -f .aorta-ref/train.py ]; then
    step aorta-default-profiled 240 env -C .aorta-ref PYTHONPATH=src CUDA_DEVICE_MAX_CONNECTIONS=1 \
      torchrun --standalone --nproc-per-node "$n" train.py --config config/default.yaml --override \
      training.max_steps=8 profiling.enabled=true profiling.wait=2 profiling.warmup=2 profiling.active=3 \
      profiling.tensorboard=false profiling.chrome_trace=true profiling.profile_memory=false \
      training.output_dir="$out/aorta-default-profiled"
    step aorta-default-connections 300 env -C .aorta-ref -u CUDA_DEVICE_MAX_CONNECTIONS PYTHONPATH=src \
      torchrun --standalone --nproc-per-node "$n" train.py --config config/default.yaml --override \
      training.max_steps=60 training.log_interval=20 profiling.enabled=false \
      training.output_dir="$out/aorta-default-connections"
  fi
  step ours-default-profiled 180 $(launch "$n" 170) train --config config/default.yaml --override \
    training.max_steps=8 profiling.enabled=true profiling.wait=2 profiling.warmup=2 profiling.active=3 \
    training.output_dir="$out/ours-default-profiled"
  # rank 0's traces through one analyzer: steps, overlap and exposed communication by HTA's definitions
  a=$(ls "$out"/aorta-default-profiled/torch_profiler/rank0/*.json 2>/dev/null | head -n 1)
  o=$(ls "$out"/ours-default-profiled/torch_profiler/rank0/*.json 2>/dev/null | head -n 1)
  [ -n "$a" ] && step analyze-aorta 120 "$aorta" analyze "$a" --format json
  [ -n "$o" ] && step analyze-ours 120 "$aorta" analyze "$o" --format json
fi

if has busbw; then
  # 5. the trainer's all-gathers and reduce-scatters from device time (its summary lines, rank 0) against a plain
  #    NCCL loop of each size on the same GPUs (aorta overlap --mode comms_only, back to back)
  for shape in default mi350_overlap_stress; do
    step "bw-$shape" 240 $(launch "$n" 230) train --config "config/$shape.yaml" --override training.max_steps=40 \
      training.log_interval=20 training.output_dir="$out/bw-$shape"
  done
  while read -r kind size; do
    step "bw-loop-$kind-$size" 120 $(launch "$n" 110) overlap --mode comms_only --collective "$kind" \
      --comm-size "$size" --comm-dtype fp32 --async-op --sync-mode end_only -i 50 -w 10 \
      -o "$out/bw-loop-$kind-$size.json"
  done < <(cat "$out"/bw-*.log | sed -n 's/.*collective \(all_gather\|reduce_scatter\) S=\([0-9]*\) B.*/\1 \2/p' | sort -u)
fi

if has workloads; then
  # 4. all-reduce bus bandwidth, 128 MiB bf16, torch.distributed and ours alternating (the host drifts)
  for i in $(seq 1 "${BUSBW_ROUNDS:-3}"); do
    step "torch-busbw-r$i" 120 torchrun --standalone --nproc-per-node "$n" --master-port "$port" \
      scripts/bench/torch_allreduce_busbw.py --size 128M --dtype bf16 --iters 100 --warmup 10 \
      --out "$out/torch-busbw-r$i.json"
    step "ours-busbw-r$i" 120 $(launch "$n" 110) overlap --mode comms_only --comm-size 128M --comm-dtype bf16 \
      --async-op --sync-mode end_only -i 100 -w 10 -o "$out/ours-busbw-r$i.json"
  done
  # 5. the distributed model workloads with real NCCL, at their recommended stream counts
  for w in ${WORKLOADS:-fsdp_tp moe activation_ckpt grad_accum}; do
    step "wl-$w" 240 $(launch "$n" 230) run "$w" -i 20 -w 30 -o "$out/wl-$w.json"
  done
  # 6. launch_overhead's collective patterns, bare and under the agent (A/B pairs of rank 0's summary)
  lo_seconds=${LO_SECONDS:-4}
  step lo-bare 90 $(launch "$n" 80) launch-overhead --patterns all_reduce,combined --seconds "$lo_seconds" \
    -o "$out/lo-bare.json"
  if [ -f dist/lib/aorta-agent.jar ]; then
    step lo-agent 480 "$aorta" overhead --agent "device-activity=none,output=$out/lo-agent-out" --runs "${LO_RUNS:-4}" \
      --threshold 0.01 --json "$out/lo-agent.json" --logs "$out/lo-agent" -- \
      launch --nproc-per-node "$n" --master-port "$((port + 100))" --timeout 60 -- \
      launch-overhead --patterns all_reduce,combined --seconds "$lo_seconds"
  fi
fi

python3 scripts/multigpu-acceptance-table.py "$out" "$n" | tee "$out/table.txt"
exit "${PIPESTATUS[0]}"
