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
from spg.model.ready import ReadyForms, exported, ready_forms
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
    ready = ready_forms(source, torch_dtype) if merge_adapters and where.type == "cpu" else None
    chosen = resolve_runtime(runtime, where, torch_dtype, has_ready_form=ready is not None)
    if chosen == "onnx" and onnx_weights == "blocks" and ready is None:
        raise ValueError(f"{source.name}: onnx_weights: blocks runs an SPG artefact on the embedded "
                         "backbone (its GGUF's blocks); use onnx_weights: float32 for this model")
    if ready is not None:
        return on_ready(ready, chosen, onnx_weights)
    loaded = on_torch(source, merge_adapters, where, torch_dtype)
    return on_onnx(source, loaded) if chosen == "onnx" else loaded


def on_ready(ready: ReadyForms, runtime: str, weights: str) -> Loaded:
    """An SPG artefact from its ready forms (spg.model.ready), its pointer on the LM's hidden states: ``torch``, the
    merged model read back; ``onnx``, the ONNX export of it (``weights``: float32, or the GGUF's ``blocks``), without
    loading any weights into PyTorch."""
    source, merged = ready.source, ready.merged()
    if runtime == "onnx":
        from transformers import GenerationConfig, PretrainedConfig

        from spg.model.onnx_model import OnnxCausalLM

        # the artefact's own tokenizer (the ready form saved a copy): the one `spg generate` read to check the prompt
        tokenizer = shared_tokenizer(source.tokenizer)
        # from_json_file: from_pretrained on the generic class warns that a llama config is not one of its own
        lm = OnnxCausalLM(PretrainedConfig.from_json_file(str(merged / "config.json")), ready.onnx(weights))
        lm.generation_config = GenerationConfig.from_pretrained(merged)
    else:
        lm, tokenizer = load_backbone(str(merged), ready.dtype)  # a plain causal LM now, with the tokenizer beside it
    return Loaded.of(SPGModel.from_merged(source.directory, source.config, lm, tokenizer).eval())


def on_torch(source: ModelSource, merge_adapters: bool, where: torch.device, dtype: torch.dtype) -> Loaded:
    """``source`` as a transformers model, the long way: a chat model as it is; an SPG artefact on its base, then its
    adapters, merged now unless ``merge_adapters`` is off."""
    if source.directory is None:
        lm, tokenizer = load_backbone(source.name, dtype)
        return Loaded(lm.to(where).eval(), tokenizer, None)
    spg = SPGModel.from_pretrained(source.directory, dtype=dtype).to(where).eval()
    if merge_adapters:
        spg.lm.merge_adapter()
    return Loaded.of(spg)


def deterministic() -> None:
    """Deterministic kernels from here on in this process (``deterministic: true``): torch's deterministic algorithms
    (an operation without one warns rather than fails: a decode should not die on a kernel), cuDNN's deterministic
    choice, and cuBLAS's fixed workspace, which it reads when it starts, so before the model's first CUDA matrix
    product (a value the user set is kept)."""
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


def onnx_lm(lm: PreTrainedModel, hf_dir: str | Path) -> PreTrainedModel:
    """``lm`` (whose weights are those saved in ``hf_dir``) as an ONNX Runtime model, exported once."""
    from spg.model.onnx_model import OnnxCausalLM

    onnx_dir = exported(hf_dir)
    fast = OnnxCausalLM(lm.config, onnx_dir)
    fast.generation_config = lm.generation_config
    return fast


def on_onnx(source: ModelSource, loaded: Loaded) -> Loaded:
    """``loaded`` with its LM run by ONNX Runtime (``runtime: onnx``, a model without ready forms): a chat model's
    export is keyed by its folder's files; an SPG model's LM is merged and saved, and the pointer reads the ONNX
    model's hidden states through the same output-embedding hook."""
    if loaded.spg is None:
        folder = local_folder(source.name)
        return Loaded(onnx_lm(loaded.lm, folder).eval(), loaded.tokenizer, None)
    from peft import PeftModel

    spg = loaded.spg
    with tempfile.TemporaryDirectory() as folder:
        # The export reads a saved merged model. Models with a ready form do not come here: their export is kept
        # beside it (on_ready); any other artefact is saved and hashed each run.
        merged = spg.merge_and_unload() if isinstance(spg.lm, PeftModel) else spg.lm
        merged.save_pretrained(folder)
        spg.tokenizer.save_pretrained(folder)  # the builder writes the tokenizer beside the model
        lm = onnx_lm(merged, folder)
    return Loaded.of(SPGModel(lm, spg.tokenizer, spg.pointer, spg.spg_config))


def local_folder(name_or_path: str) -> str:
    """The local folder of a model by name or path (the ONNX export reads files); hub names from the local cache."""
    from huggingface_hub import snapshot_download

    path = resolve(name_or_path)
    return path if Path(path).is_dir() else snapshot_download(path, local_files_only=True)
