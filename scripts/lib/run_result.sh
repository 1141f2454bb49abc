# Sourced by the GPU comparison scripts: reading an `aorta run`/`aorta sweep` result file (aorta.run/1, or
# aorta.sweep/1 whose first point is then the result).

field() { # JSON file, python expression over r (the run's result); "-" when the file or the field is missing
    python3 - "$1" "$2" <<'PY' 2>/dev/null || echo "-"
import json, sys
r = json.load(open(sys.argv[1]))
if r.get("schema", "").startswith("aorta.sweep"):
    r = r["results"][0]
print(eval(sys.argv[2]))
PY
}
