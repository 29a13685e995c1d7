#!/usr/bin/env bash
# Issue 41's GPU figures in one run (docs/generation.md, "Batched decoding: where a step goes"): the shipped model on
# N documents of the checker_split test side of the shared USPTO set, batch B, NEW new tokens, greedy, each run a fresh
# process with its compilation: checker on, checker off, then twice with `deterministic: true` (do the two give the
# same claims, and at what cost), then the per-step host figures of benchmarks/decode_step.py on the GPU's torch path.
# Targets: >= 3,000 new tokens/s checker on, >= 5,000 off (N=200, B=64, NEW=512); deterministic runs identical.
# Run from the project root with spg importable (the device kit's env.sh, or .venv/bin on PATH):
#     bash benchmarks/decode_gpu.sh [N=200] [B=64] [NEW=512] [OUT=runs/decode-gpu]
set -uo pipefail
n=${1:-200}; batch=${2:-64}; new=${3:-512}; out=${4:-runs/decode-gpu}
py=${PYTHON:-python3}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
"$py" - "$n" "$out/input.jsonl" <<'PY'
import json, os, sys
from pathlib import Path
from spg.data import checker_split
n, dest = int(sys.argv[1]), sys.argv[2]
src = Path(os.environ.get("SPG_DATA_DIR", "../shared/data")) / "uspto/patents.jsonl"
rows = [r for r in map(json.loads, src.open(encoding="utf-8")) if checker_split(r["id"]) == "test" and r.get("description")]
Path(dest).write_text("".join(json.dumps({"id": r["id"], "description": r["description"]}) + "\n" for r in rows[:n]))
print(f"{min(n, len(rows))} documents of the test side -> {dest}")
PY
printf 'redraws: 0\n' > "$out/off.yaml"
printf 'deterministic: true\n' > "$out/det.yaml"
run() {  # name, extra args...: prints spg generate's "N new tokens in S s (R tokens/s)" line and the wall time
  local name=$1; shift
  rm -f "$out/$name.jsonl"
  local t0=$(date +%s%N)
  "$py" -m spg.cli generate --input "$out/input.jsonl" --output "$out/$name.jsonl" --greedy --batch-size "$batch" \
    --max-new-tokens "$new" --device cuda --no-progress "$@" >"$out/$name.out" 2>"$out/$name.log"
  # spg generate prints its summary line on stderr
  echo "$name: $(grep -h -m1 'new tokens in' "$out/$name.log"); $(( ($(date +%s%N) - t0) / 1000000 )) ms wall"
}
run on
run off --config "$out/off.yaml"
run det1 --config "$out/det.yaml"
run det2 --config "$out/det.yaml"
"$py" - "$out" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
def claims(name):
    return {r["id"]: (r["raw"], r["pointer_parents"]) for r in map(json.loads, (out / f"{name}.jsonl").open())}
a, b = claims("det1"), claims("det2")
same = sum(a[i] == b.get(i) for i in a)
print(f"deterministic: {same} of {len(a)} documents the same in two runs ({'identical' if same == len(a) else 'RUNS DIFFER'})")
PY
"$py" benchmarks/decode_step.py --device cuda --batch-sizes 16 64 --ratio-docs 0
