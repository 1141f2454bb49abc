#!/usr/bin/env bash
# training.inject_allreduce_copies on the GPU (issue 14): one rank under aorta launch, 30 fp32 steps without and with
# allreduce_stress_level 3. The stress must not change training (losses equal in every step), must put its NCCL
# kernels and copies into the step (more of both per step, the all-reduces on the allreduce stream), and one GPU
# without a launcher must say it skips it. Usage: scripts/trainer-stress-gpu.sh (from the root, after ./build package).
set -u
export NCCL_NVLS_ENABLE=0
for lvl in off 3; do
  extra=""; [ "$lvl" != off ] && extra="training.inject_allreduce_copies=true training.allreduce_stress_level=$lvl"
  timeout 120 dist/bin/aorta launch --nproc-per-node 1 --master-port $((29900 + RANDOM % 500)) -- train --config config/default.yaml \
    --override training.max_steps=30 training.log_interval=30 training.mixed_precision=none model.dropout=0 \
    training.output_dir=/tmp/st-$lvl $extra 2>&1 | tail -2
done
timeout 60 dist/bin/aorta train --config config/default.yaml --override training.max_steps=3 training.inject_allreduce_copies=true training.output_dir=/tmp/st-one 2>&1 | grep -i "warning" | head -2
python3 - <<'PY'
import json
a=[json.loads(l) for l in open('/tmp/st-off/rank_00_metrics.jsonl')]
b=[json.loads(l) for l in open('/tmp/st-3/rank_00_metrics.jsonl')]
eq=sum(x['loss']==y['loss'] for x,y in zip(a,b))
def nccl(l): return [r for r in l['profile']['ranges'] if 'nccl' in r['tag'].lower()]
def cp(l): return [r for r in l['profile']['ranges'] if r['tag'].startswith('Memcpy') or 'memcpy' in r['tag'].lower()]
med=lambda v: sorted(v)[len(v)//2]
print("losses equal %d/%d; nccl kernels per step: off %d, level 3 %d (streams %s); copies per step off %d, level 3 %d" % (eq, len(a), len(nccl(a[5])), len(nccl(b[5])), sorted({r['stream'] for r in nccl(b[5])}), len(cp(a[5])), len(cp(b[5]))))
print("step ms median: off %.2f, level 3 %.2f; allreduce stream busy ms level 3: %.3f" % (med([l['step_time_ms'] for l in a[5:]]), med([l['step_time_ms'] for l in b[5:]]), med([l['profile']['overlap']['per_stream_ms']['allreduce'] for l in b[5:]])))
PY
