#!/usr/bin/env bash
# The model ops' GPU acceptance check: runs every op forward and backward on GPU 0 (OpsCheck compares each
# output and gradient with the float64 Java reference), then feeds the same inputs and weights to PyTorch
# (scripts/model-ops-check.py, float64 on the CPU) for the second comparison. Prints both tables.
# Usage: scripts/model-ops-check.sh LIB_DIR OUT_DIR [OpsCheck arguments]   (then OpsTiming prints first timings)
#   LIB_DIR: the model jar and its runtime dependencies (./build -pl model -am package dependency:copy-dependencies)
set -uo pipefail
lib=${1:?usage: model-ops-check.sh LIB_DIR OUT_DIR [OpsCheck arguments]}
out=${2:?usage: model-ops-check.sh LIB_DIR OUT_DIR [OpsCheck arguments]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
cases=${MODEL_CHECK_CASES:-$(mktemp -d)}  # the case files are large: kept out of OUT_DIR
mkdir -p "$out" "$cases"
java --enable-native-access=ALL-UNNAMED -cp "$lib/*" dev.aorta.model.check.OpsCheck --out "$cases" "$@" \
  > "$out/java-check.txt" 2>&1
java_rc=$?
python3 "$here/model-ops-check.py" "$cases" > "$out/torch-check.txt" 2>&1
torch_rc=$?
java --enable-native-access=ALL-UNNAMED -cp "$lib/*" dev.aorta.model.check.OpsTiming > "$out/timing.txt" 2>&1
echo "== OpsTiming (exit $?)"
cat "$out/timing.txt"
# the full tables are in OUT_DIR; here the failures and the summaries, last
echo "== OpsCheck against the float64 Java reference (exit $java_rc; full table in $out/java-check.txt)"
grep -E "FAIL|Exception|Error" "$out/java-check.txt" | head -40
tail -1 "$out/java-check.txt"
echo "== against PyTorch float64 (exit $torch_rc; full table in $out/torch-check.txt)"
grep -E "FAIL|Error|Traceback" "$out/torch-check.txt" | head -40
tail -1 "$out/torch-check.txt"
[ $java_rc -eq 0 ] && [ $torch_rc -eq 0 ]
