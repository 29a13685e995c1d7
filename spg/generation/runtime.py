"""How the decoding model runs: the ``runtime`` setting of ``spg generate`` (docs/generation.md, "CPU decoding").

* ``torch`` — the transformers model as loaded (on CUDA: bfloat16 and the compiled step).
* ``onnx`` — the same model exported once to ONNX with 4-bit weights and run by ONNX Runtime on the CPU
  (:mod:`spg.generation.onnx_model`); any transformers causal LM that onnxruntime-genai's model builder exports
  (Llama, Mistral, Qwen, Phi, Gemma, ...). Needs the ``cpu`` extra (``pip install 'spg[cpu]'``).
* ``auto`` — ``onnx`` on the CPU in float32 when ONNX Runtime is installed, ``torch`` everywhere else: GPU users
  keep bfloat16 and the compiled step.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import torch
from transformers import PreTrainedModel

RUNTIMES = ("auto", "torch", "onnx")


def onnx_available() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "onnxruntime_genai"))


def resolve_runtime(setting: str, device: torch.device, dtype: torch.dtype) -> str:
    """The runtime ``setting`` means on ``device`` in ``dtype``: ``auto`` is ``onnx`` for float32 on the CPU when
    ONNX Runtime is installed; ``onnx`` elsewhere is a ValueError saying why."""
    if setting not in RUNTIMES:
        raise ValueError(f"runtime must be one of {', '.join(RUNTIMES)}, got {setting!r}")
    cpu_fp32 = device.type == "cpu" and dtype == torch.float32
    if setting == "auto":
        return "onnx" if cpu_fp32 and onnx_available() else "torch"
    if setting == "onnx" and not cpu_fp32:
        raise ValueError(f"runtime onnx runs float32 models on the CPU, not {dtype} on {device}")
    if setting == "onnx" and not onnx_available():
        raise ValueError("runtime onnx needs onnxruntime and onnxruntime-genai: pip install 'spg[cpu]'")
    return setting


def onnx_lm(lm: PreTrainedModel, hf_dir: str | Path) -> PreTrainedModel:
    """``lm`` (whose weights are those saved in ``hf_dir``) as an ONNX Runtime model, exported once."""
    from spg.generation.onnx_model import OnnxCausalLM, onnx_model_dir

    fast = OnnxCausalLM(lm.config, onnx_model_dir(hf_dir))
    fast.generation_config = lm.generation_config
    return fast
