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
    ``dtype`` as spg.model.backbone resolves them; choose the runtime; build that runtime's model. On the CPU a merged
    artefact loads from its ready forms, built once (spg.model.ready); a GPU run merges at load, so a large model is
    not copied into the cache."""
    where = resolve_device(device)
    torch_dtype = resolve_dtype(dtype, where)
    ready = merge_adapters and where.type == "cpu" and source.has_ready_forms
    chosen = resolve_runtime(runtime, where, torch_dtype, has_ready_form=ready)
    if chosen == "torch":
        return on_torch(source, ready, merge_adapters, where, torch_dtype)
    if onnx_weights == "blocks" and not ready:
        raise ValueError(f"{source.name}: onnx_weights: blocks runs an SPG artefact on the embedded "
                         "backbone (its GGUF's blocks); use onnx_weights: float32 for this model")
    return on_onnx(source, ready, onnx_weights, merge_adapters)


def on_torch(source: ModelSource, ready: bool, merge_adapters: bool, where: torch.device, dtype: torch.dtype) -> Loaded:
    """``source`` as a transformers model. An SPG artefact without ready forms the long way
    (SPGModel.from_pretrained), its adapters merged now unless ``merge_adapters`` is off. Otherwise one causal LM read
    as it is: an artefact's merged copy from its ready forms, its pointer head put around it; or a chat model."""
    if source.directory is not None and not ready:
        spg = SPGModel.from_pretrained(source, dtype=dtype).to(where).eval()
        if merge_adapters:
            spg.lm.merge_adapter()
        return Loaded.of(spg)
    if ready:
        forms = ready_forms(source, dtype)
        model = forms.merged()
    else:
        model = source.name
    lm, tokenizer = load_backbone(str(model), dtype)
    if not ready:
        return Loaded(lm.to(where).eval(), tokenizer, None)
    return Loaded.of(SPGModel.around(source, lm, tokenizer).eval())


def on_onnx(source: ModelSource, ready: bool, weights: str, merge_adapters: bool) -> Loaded:
    """``source`` run by ONNX Runtime on the CPU, on an export: an SPG artefact with ready forms on the one kept
    beside them (``weights``: float32, or the GGUF's ``blocks``), without loading any weights into PyTorch; any other
    model as :func:`on_torch` loads it, exported from its folder (an SPG artefact merged and saved first), keyed by
    the folder's files. An artefact's pointer head reads the ONNX model's hidden states through the output-embedding
    hook, as on PyTorch."""
    from transformers import GenerationConfig, PretrainedConfig

    from spg.model.onnx_model import OnnxCausalLM

    if not ready:
        loaded = on_torch(source, False, merge_adapters, torch.device("cpu"), torch.float32)
        lm, tokenizer = loaded.lm, loaded.tokenizer
        with tempfile.TemporaryDirectory() as saved:
            if loaded.spg is None:
                folder = local_folder(source.name)
            else:  # the export reads a saved model: saved and hashed each run
                lm, folder = loaded.spg.merge_and_unload(), saved
                lm.save_pretrained(folder)
                tokenizer.save_pretrained(folder)  # the builder writes the tokenizer beside the model
            onnx_dir = exported(folder)
        config, generation = lm.config, lm.generation_config
    else:
        forms = ready_forms(source, torch.float32)
        merged, onnx_dir = forms.merged(), forms.onnx(weights)
        # the artefact's own tokenizer (the ready form saved a copy): the one `spg generate` read to check the prompt
        tokenizer = shared_tokenizer(source.tokenizer)
        # from_json_file: from_pretrained on the generic class warns that a llama config is not one of its own
        config, generation = PretrainedConfig.from_json_file(str(merged / "config.json")), GenerationConfig.from_pretrained(merged)
    lm = OnnxCausalLM(config, onnx_dir)
    lm.generation_config = generation
    if source.directory is None:
        return Loaded(lm.eval(), tokenizer, None)
    return Loaded.of(SPGModel.around(source, lm, tokenizer).eval())


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
