"""Settings of ``spg generate``: a dataclass, loadable from YAML (configs/paper/generate.yaml is the paper's)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import yaml

from spg.generation.pointer_decode import DecodeSettings

MODEL_SETTINGS = "generate.yaml"  # an artefact's own decoding defaults


@dataclass(frozen=True)
class GenerateConfig:
    """Defaults: the paper's evaluation settings (appendix "Evaluation Settings"), constrained decoding on."""

    model: str = "spg-smollm2"  # shipped SPG model (spg.pretrained), SPG artefact dir, or HF chat model name/path
    zero_shot: bool = False
    constrained: bool | None = None  # None: on for tagged SPG models (the product default), off otherwise
    max_new_tokens: int = 1024
    max_prompt_tokens: int = 7168  # 8,192 context − 1,024 new tokens
    temperature: float = 0.1
    do_sample: bool = True
    no_repeat_ngram_size: int = 0  # not in the paper: no n-gram twice inside one generated claim (0: off)
    repetition_penalty: float = 1.0  # not in the paper: transformers' repetition penalty (1.0: off)
    boundary_temperature: float | None = None  # not in the paper: the token after a claim ends sampled at this
    cache_implementation: str = "auto"  # auto: static where the step is compiled (CUDA), else dynamic (kv_cache)
    compile: bool = True  # on CUDA with a static cache: the decoding step compiled (CUDA graphs); False: eager
    merge_adapters: bool = True  # fold the LoRA adapter into the base weights at load (same greedy outputs)
    runtime: str = "auto"  # auto (= torch for now) | torch | onnx: ONNX Runtime, 4-bit, on the CPU (runtime.py)
    defer_stop_check: bool = True  # on CUDA: read "all rows stopped?" one step late, so the host never waits
    batch_size: int | None = None  # None: 4 on the CPU, 16 on a GPU (decoding there is nearly free per extra row)
    # Decode the longest prompts first: each batch then holds prompts of similar length (less padding), and on CUDA
    # the first batch's static cache serves all later ones, so the compiled step is never re-traced. Results are
    # appended in that order (they are keyed by id); False keeps the input order.
    sort_by_length: bool = True
    seed: int = 0
    dtype: str = "auto"  # bfloat16 on a CUDA device that supports it, float32 elsewhere
    device: str | None = None  # default: cuda when available, else cpu

    @classmethod
    def from_yaml(cls, path: str | Path) -> GenerateConfig:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a mapping of generation settings, got {type(data).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"{path}: unknown settings {unknown}; expected some of {sorted(known)}")
        return cls(**data)

    @classmethod
    def for_model(cls, model: str) -> GenerateConfig:
        """The defaults for ``model``: an SPG artefact's own ``generate.yaml`` (decoding chosen for that model on the
        dev split, like transformers' generation_config.json) when it has one, else the paper's settings."""
        from spg.config import load_config
        from spg.model.spg_model import is_artefact, resolve_artefact

        own = resolve_artefact(model) / MODEL_SETTINGS if is_artefact(model) else None
        config = load_config(cls, own) if own is not None and own.is_file() else cls()
        return config.replace(model=model)

    def batch_size_on(self, device_type: str) -> int:
        """Documents decoded together: ``batch_size``, else 4 on the CPU and 16 on an accelerator."""
        return self.batch_size or (4 if device_type == "cpu" else 16)

    def replace(self, **changes) -> GenerateConfig:
        return dataclasses.replace(self, **changes)

    def decode_settings(self) -> DecodeSettings:
        return DecodeSettings(
            self.max_new_tokens, 0, self.do_sample, self.temperature, self.no_repeat_ngram_size,
            self.repetition_penalty, self.boundary_temperature, self.cache_implementation, self.compile,
            self.merge_adapters, self.defer_stop_check, self.runtime,
        )
