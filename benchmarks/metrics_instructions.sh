#!/usr/bin/env bash
# Instructions per claim-set pair of one evaluation pass of metrics_speed.py (PS_rule + SP/AC/CC + DEA + valid,
# memos empty), counted by valgrind's callgrind: the same count on every run, whatever else the machine is doing,
# so a change of a few percent shows where timings cannot. Loading and start-up cancel out: the script counts a
# run of two passes and a run of one, and divides the difference by the pairs. Needs valgrind (Debian: valgrind);
# a few minutes for the default 150 pairs.
#
#   bash benchmarks/metrics_instructions.sh [PAIRS]
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-150}
python=${PYTHON:-.venv/bin/python}
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$python" benchmarks/metrics_speed.py \
    --passes "$1" --limit "$pairs" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
one=$(count 1)
two=$(count 2)
echo "$(( (two - one) / pairs )) instructions per pair (first $pairs pairs, one evaluation pass, memos empty)"
