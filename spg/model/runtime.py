"""How the decoding model runs, and the one path that loads it (:func:`load_model`): take the artefact resolved once
(spg.model.config.describe) and its ready forms (on the CPU: spg.model.ready), choose the runtime (the ``runtime``
setting of ``spg generate``, docs/generation.md "CPU decoding"), build that runtime's model.

* ``torch`` — the transformers model as loaded (on CUDA: bfloat16 and the compiled step).
* ``onnx`` — the same model exported once to ONNX (float32) and run by ONNX Runtime on the CPU
  (:mod:`spg.model.onnx_model`); any transformers causal LM that onnxruntime-genai's model builder exports
  (Llama, Mistral, Qwen, Phi, Gemma, ...). Needs the ``cpu`` extra (``pip install 'spg[cpu]'``).
* ``auto`` — ``onnx`` on a float32 CPU for the models with a ready form in the cache (the artefacts on the embedded
  backbone, spg.model.ready: what a laptop runs) when ONNX Runtime is installed, one document at a time (the main
  job) or in batches (the export decodes a batch in one run per step since issue 41); ``torch`` everywhere else (CUDA
  unchanged; a large model is not exported behind the user's back). On the 2-core CPU the export decodes the
  same greedy tokens as float32 PyTorch, about 1.5x as fast (benchmarks/cpu_decoding.py).
"""

from __future__ import annotations

import importlib.util
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from transformers import PreTrainedTokenizerBase

from spg.model.backbone import load_backbone, resolve, resolve_device, resolve_dtype
from spg.model.config import RUNTIMES, ModelSource
from spg.model.ready import exported, ready_forms
from spg.model.spg_model import SPGModel
from spg.model.tokenizer import shared_tokenizer

if TYPE_CHECKING:  # transformers' model code (modeling_utils: 1-2 s of imports) only where a model is built
    from transformers import PreTrainedModel


def onnx_available() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "onnxruntime_genai"))


def resolve_runtime(setting: str, device: torch.device, dtype: torch.dtype, has_ready_form: bool = False) -> str:
    """The runtime ``setting`` means on ``device`` in ``dtype`` for a model that has a ready form in the cache or not
    (spg.model.ready: the artefacts on the embedded backbone): ``auto`` is ``onnx`` for those on a float32 CPU when
    ONNX Runtime is installed, ``torch`` otherwise; ``onnx`` off a float32 CPU, or without ONNX Runtime, is a
    ValueError saying why. Batches too: the export decodes a batch in one run per step (until issue 41 it decoded row
    by row, and ``auto`` took PyTorch for batches)."""
    if setting not in RUNTIMES:
        raise ValueError(f"runtime must be one of {', '.join(RUNTIMES)}, got {setting!r}")
    cpu_fp32 = device.type == "cpu" and dtype == torch.float32
    if setting == "auto":
        return "onnx" if has_ready_form and cpu_fp32 and onnx_available() else "torch"
    if setting == "onnx" and not cpu_fp32:
        raise ValueError(f"runtime onnx runs float32 models on the CPU, not {dtype} on {device}")
    if setting == "onnx" and not onnx_available():
        raise ValueError("runtime onnx needs onnxruntime and onnxruntime-genai: pip install 'spg[cpu]'")
    return setting


@dataclass(frozen=True)
class Loaded:
    """What :func:`load_model` built: the LM that generates and its tokenizer, and for an SPG artefact the
    ``SPGModel`` around them (pointer head, config); None for a chat model prompted zero-shot."""

    lm: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase
    spg: SPGModel | None

    @classmethod
    def of(cls, spg: SPGModel) -> Loaded:
        return cls(spg.lm, spg.tokenizer, spg)


def load_model(source: ModelSource, runtime: str = "auto", *, onnx_weights: str = "float32",
               merge_adapters: bool = True, dtype: str = "auto", device: str | None = None) -> Loaded:
    """The one load path of generation: ``source`` (resolved once: spg.model.config.describe) on ``device`` in
    ``dtype`` as spg.model.backbone resolves them; choose the runtime; build that runtime's LM, one of three ways (an
    artefact the long way, an artefact's ready export, or one causal LM read as it is), exported to ONNX if the runtime
    is ``onnx`` and it was not; put an artefact's pointer head around the LM, here and nowhere else. On the CPU a merged
    artefact loads from its ready forms, built once (spg.model.ready); a GPU run merges at load, so a large model is not
    copied into the cache."""
    where = resolve_device(device)
    torch_dtype = resolve_dtype(dtype, where)
    ready = merge_adapters and where.type == "cpu" and source.has_ready_forms
    chosen = resolve_runtime(runtime, where, torch_dtype, has_ready_form=ready)
    if chosen == "onnx" and onnx_weights == "blocks" and not ready:
        raise ValueError(f"{source.name}: onnx_weights: blocks runs an SPG artefact on the embedded "
                         "backbone (its GGUF's blocks); use onnx_weights: float32 for this model")
    if source.directory is not None and not ready:  # an artefact without ready forms: a GPU run, another base
        spg = SPGModel.from_pretrained(source, dtype=torch_dtype).to(where).eval()
        if chosen == "torch":
            if merge_adapters:
                spg.lm.merge_adapter()
            return Loaded.of(spg)
        lm, tokenizer = spg.merge_and_unload(), spg.tokenizer
    elif chosen == "torch" or not ready:  # one causal LM as it is: an artefact's ready merged copy, or a chat model
        model = ready_forms(source, torch_dtype).merged() if ready else source.name
        lm, tokenizer = load_backbone(str(model), torch_dtype)
        lm = lm.to(where)
    else:  # an artefact's export kept beside its ready forms, no weights loaded into PyTorch
        from transformers import GenerationConfig, PretrainedConfig

        from spg.model.onnx_model import OnnxCausalLM

        forms = ready_forms(source, torch.float32)
        merged = forms.merged()
        # both configs read as the files they are: from_pretrained on the generic config class warns that a llama
        # config is not one of its own
        generation = GenerationConfig.from_dict(json.loads((merged / "generation_config.json").read_text()))
        config = PretrainedConfig.from_json_file(str(merged / "config.json"))
        lm = OnnxCausalLM(config, forms.onnx(onnx_weights), generation)
        tokenizer = shared_tokenizer(source.tokenizer)  # the one `spg generate` read to check the prompt
    if chosen == "onnx" and not ready:  # resolve_runtime made sure that this is float32 on the CPU
        lm = exported_lm(source, lm, tokenizer)
    if source.directory is None:
        return Loaded(lm.eval(), tokenizer, None)
    return Loaded.of(SPGModel.around(source, lm, tokenizer).eval())


def exported_lm(source: ModelSource, lm: PreTrainedModel, tokenizer: PreTrainedTokenizerBase) -> PreTrainedModel:
    """``lm`` (``source``'s, as loaded into PyTorch: an artefact merged, or a chat model) run by ONNX Runtime on the
    CPU, on its export keyed by the files of its folder (an artefact's merged LM is saved first, each run). An
    artefact's pointer head reads the ONNX model's hidden states through the output-embedding hook, as on PyTorch."""
    from spg.model.onnx_model import OnnxCausalLM

    with tempfile.TemporaryDirectory() as saved:
        if source.directory is None:
            folder = local_folder(source.name)
        else:
            lm.save_pretrained(saved)
            tokenizer.save_pretrained(saved)  # the builder writes the tokenizer beside the model
            folder = saved
        return OnnxCausalLM(lm.config, exported(folder), lm.generation_config)


def deterministic() -> None:
    """Deterministic kernels from here on in this process (``deterministic: true``): torch's deterministic algorithms
    (an operation without one warns rather than fails: a decode should not die on a kernel), cuDNN's deterministic
    choice, and cuBLAS's fixed workspace, which it reads when it starts, so before the model's first CUDA matrix
    product (a value the user set is kept)."""
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


def local_folder(name_or_path: str) -> str:
    """The local folder of a model by name or path (the ONNX export reads files); hub names from the local cache."""
    from huggingface_hub import snapshot_download

    path = resolve(name_or_path)
    return path if Path(path).is_dir() else snapshot_download(path, local_files_only=True)
