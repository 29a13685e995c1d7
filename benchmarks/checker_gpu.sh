#!/usr/bin/env bash
# The checker in the loop on a GPU, in batches (issue 30; docs/generation.md, "Checker in the loop"): the shipped
# model drafts N documents of the checker_split test side of the shared USPTO set, greedy, batch B, with the checker
# off and on (twice, to show the run repeats exactly), then prints the blocking findings left in each output, the
# redraws per document and the time of each run. Also runs the tests that need CUDA. Run from the project root with
# spg importable (the device kit's env.sh, or .venv/bin on PATH):
#     bash benchmarks/checker_gpu.sh [N=20] [B=16] [NEW_TOKENS=512] [OUT=runs/checker-gpu]
set -uo pipefail
n=${1:-20}; batch=${2:-16}; new=${3:-512}; out=${4:-runs/checker-gpu}
py=${PYTHON:-python3}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
"$py" -m pytest -q -m "slow or not slow" -p no:cacheprovider tests/test_backbone.py tests/test_generation.py \
  tests/test_redraw.py 2>&1 | tail -n 4
"$py" - "$n" "$out/input.jsonl" <<'PY'
import json, os, sys
from pathlib import Path
from spg.data import checker_split
n, dest = int(sys.argv[1]), sys.argv[2]
src = Path(os.environ.get("SPG_DATA_DIR", "../shared/data")) / "uspto/patents.jsonl"
rows = [r for r in map(json.loads, src.open(encoding="utf-8")) if checker_split(r["id"]) == "test" and r["kind"] == "grant"]
Path(dest).write_text("".join(json.dumps({"id": r["id"], "description": r["description"]}) + "\n" for r in rows[:n]))
print(f"{min(n, len(rows))} granted US documents of the test side -> {dest}")
PY
printf 'redraws: 0\n' > "$out/off.yaml"
run() {  # name, extra args...
  local name=$1; shift
  rm -f "$out/$name.jsonl"
  local t0=$(date +%s%N)
  "$py" -m spg.cli generate --input "$out/input.jsonl" --output "$out/$name.jsonl" --greedy --batch-size "$batch" \
    --max-new-tokens "$new" --device cuda --no-progress "$@" 2>"$out/$name.log" | tail -n 1
  echo "$name: $(( ($(date +%s%N) - t0) / 1000000 )) ms wall; $(tail -n 1 "$out/$name.log")"
}
run off --config "$out/off.yaml"
run on1
run on2
cmp -s "$out/on1.jsonl" "$out/on2.jsonl" && echo "checker on: two runs identical" || echo "checker on: RUNS DIFFER"
"$py" - "$out" <<'PY'
import json, sys
from collections import Counter
from pathlib import Path
from spg.data import record_from_json
from spg.generation.redraw import ClaimCheck
out = Path(sys.argv[1])
check = ClaimCheck()
for name in ("off", "on1"):
    rows = [json.loads(line) for line in (out / f"{name}.jsonl").open()]
    kinds, claims, redraws = Counter(), 0, []
    for row in rows:
        forest = record_from_json({"id": row["id"], "claims": row["forest"]}, name).claims
        claims += len(forest.claims)
        kinds.update(f.rule for f in check.blocking(forest))
        redraws.append(row.get("redraws", 0))
    print(f"{name}: {len(rows)} documents, {claims} claims, blocking findings {sum(kinds.values())} {dict(kinds)}, "
          f"redraws per document {redraws}, ended by the checker {sum(r.get('ended_by_checker', False) for r in rows)}")
PY
