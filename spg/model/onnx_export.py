"""The ONNX export of a transformers model folder, the build behind the ``onnx`` runtime's models
(spg.model.onnx_model): onnxruntime-genai's model builder (``python -m onnxruntime_genai.models.builder``), run once
per model into a folder of the ready-form cache (spg.model.ready asks for every export), never half-written.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

from spg.model.backbone import build_once

# Builder options: float32 weights and activations (see the module docstring), hidden states as an extra output.
EXPORT = ["-p", "fp32", "-e", "cpu", "--extra_options", "include_hidden_states=true", "hf_token=false"]
EXPORT_FORMAT = 2  # bump when EXPORT or the build below changes: every exported model is then rebuilt


def options_key() -> str:
    """What an export is built with: the builder's options and version and this module's build format."""
    return hashlib.sha256(json.dumps([EXPORT_FORMAT, EXPORT, version("onnxruntime-genai")]).encode()).hexdigest()


def export(hf_dir: Path, target: Path) -> Path:
    """``target``: the ONNX export of the transformers model folder ``hf_dir``, built now unless it exists."""

    def build(partial: Path) -> None:
        command = [sys.executable, "-m", "onnxruntime_genai.models.builder", "-m", str(hf_dir), "-i", str(hf_dir),
                   "-o", str(partial), "-c", str(partial / "build"), *EXPORT]
        done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
        if done.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
            raise RuntimeError(f"exporting {hf_dir} to ONNX failed: {' '.join(tail)}")
        shutil.rmtree(partial / "build", ignore_errors=True)

    return build_once(target, build)  # a killed export never leaves a half-written model behind
