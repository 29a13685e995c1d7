"""What an SPG model is built from (:class:`SPGConfig`, saved as ``spg_config.json``), without torch: a Stage I
config holds one, and spg.config checks it before any model loads."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from spg.config import Invalid, at_least, check_model, one_of
from spg.files import write_artefact

EMBEDDED = "smollm2"  # the embedded SmolLM2-135M-Instruct (spg.model.backbone)

CONFIG_NAME = "spg_config.json"
INSTRUCTION = (
    "Draft the patent claims for the invention described below. Write every independent claim and its "
    "dependent claims; each dependent claim refers back to the claim it narrows."
)
TARGET_TRUNCATIONS = ("claims", "tokens")  # spg.model.batch.fit_target
TRUNCATION_SIDES = ("right", "left")
STATE_NORMS = ("none", "rms")  # spg.model.norm
POINTER_QUERIES = ("open", "close")  # spg.model.pointer
RUNTIMES = ("auto", "torch", "onnx")  # spg.model.runtime
ONNX_WEIGHTS = ("float32", "blocks")  # spg.model.onnx_model, spg.model.gguf_blocks


def spg_cache() -> Path:
    """Where spg keeps what it builds once: ``$SPG_CACHE``, default ``~/.cache/spg``."""
    return Path(os.environ.get("SPG_CACHE", Path.home() / ".cache" / "spg"))


def embedded_folder() -> Path:
    """Where spg.model.backbone.embedded_path converts the embedded SmolLM2 to on first use (named here, without
    torch, so that its tokenizer can be read before any model loads)."""
    return spg_cache() / "smollm2-135m-instruct"


@dataclass
class LoraSettings:
    """The LoRA adapter a stage trains (PEFT's LoraConfig arguments); defaults: Stage I's (paper Table 7)."""

    lora_r: int = 96
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    lora_target_modules: list[str] | str = "all-linear"

    def check(self) -> None:
        at_least("lora_r", self.lora_r, 1)
        if not 0 <= self.lora_dropout < 1:
            raise Invalid("lora_dropout", f"must be in [0, 1), got {self.lora_dropout}")


@dataclass
class ModelSettings(LoraSettings):
    """What a Stage I config says about the model it trains: the configurable part of :class:`SPGConfig`."""

    base_model: str = EMBEDDED  # HF name or path, or "smollm2" for the embedded backbone (the one default)
    tagged: bool = True  # False: the "Baseline" ablation (plain numbered claims, no tags, no pointer)
    instruction: str = INSTRUCTION
    max_length: int = 8192
    max_target_tokens: int | None = None  # None: no cap (the paper); see spg.model.batch for the policies
    target_truncation: str = "claims"
    description_truncation_side: str = "left"  # the paper truncates inputs from the left
    rho: float = 5.0  # Eq. 4 base radius
    lam: float = 0.85  # Eq. 4 decay
    aux_state_norm: str = "none"  # "rms": pointer and scope read unit-RMS states (spg.model.norm); paper: "none"
    pointer_query: str = "open"  # "close": the pointer asks at the dependent's closing tag (spg.model.pointer)

    def check(self) -> None:
        """What the model's code would reject after loading the backbone, rejected before (spg.config)."""
        LoraSettings.check(self)
        one_of("target_truncation", self.target_truncation, TARGET_TRUNCATIONS)
        one_of("description_truncation_side", self.description_truncation_side, TRUNCATION_SIDES)
        one_of("aux_state_norm", self.aux_state_norm, STATE_NORMS)
        one_of("pointer_query", self.pointer_query, POINTER_QUERIES)
        at_least("max_length", self.max_length, 2)
        at_least("max_target_tokens", self.max_target_tokens, 1)

    def check_available(self) -> None:
        check_model("base_model", self.base_model, shipped=(EMBEDDED,))

    def model_config(self) -> SPGConfig:
        """The :class:`SPGConfig` of the model these settings build (its token ids are filled in when it is)."""
        return SPGConfig(**{f.name: getattr(self, f.name) for f in fields(ModelSettings)})


@dataclass
class SPGConfig(ModelSettings):
    """What is needed to rebuild an SPG model around its base LM; saved as ``spg_config.json``."""

    structure_token_ids: dict[str, int] = field(default_factory=dict)
    # Stage II: the Stage I artefact whose merged model is this adapter's base (None: the adapter sits on
    # base_model). An absolute path in memory; saved relative to the artefact when the two share a parent.
    stage1: str | None = None

    def save(self, directory: Path) -> None:
        values = asdict(self)
        if self.stage1 is not None:
            values["stage1"] = portable_path(Path(self.stage1), directory)
        write_artefact(directory / CONFIG_NAME, json.dumps(values, indent=2) + "\n")

    @classmethod
    def load(cls, directory: Path) -> SPGConfig:
        path = directory / CONFIG_NAME
        if not path.is_file():
            raise FileNotFoundError(f"{path} not found: {directory} is not an SPG model directory")
        config = cls(**json.loads(path.read_text()))
        if config.stage1 is not None:
            stage1 = (directory / config.stage1).resolve()  # an absolute stage1 stays as it is
            if not (stage1 / CONFIG_NAME).is_file():
                raise FileNotFoundError(
                    f"{path}: stage1 = {config.stage1!r} resolves to {stage1}, which is not an SPG artefact; "
                    "move the Stage I artefact along with this one, or correct stage1 in that file"
                )
            config.stage1 = str(stage1)
        return config


def shipped_path(name: str) -> Path | None:
    """The artefact directory of a model shipped with spg (:data:`spg.pretrained.SHIPPED`), or None when ``name`` is
    not one (or its weights are absent)."""
    from spg.pretrained import HERE, SHIPPED

    relative = SHIPPED.get(name)
    if relative is None or not (HERE / relative / CONFIG_NAME).is_file():
        return None
    return HERE / relative


def resolve_artefact(name_or_dir: str | Path) -> Path:
    """An artefact directory, or the directory of a model shipped with spg by name (:func:`shipped_path`)."""
    return shipped_path(str(name_or_dir)) or Path(name_or_dir)


def tokenizer_folder(directory: Path, config: SPGConfig) -> Path:
    """Where the artefact ``directory``'s tokenizer is saved: a Stage II artefact may leave it to its Stage I (the
    shipped model does: 3.5 MB less)."""
    own = (directory / "tokenizer_config.json").is_file() or config.stage1 is None
    return directory if own else Path(config.stage1)


def is_artefact(name_or_dir: str | Path | None) -> bool:
    return name_or_dir is not None and (resolve_artefact(name_or_dir) / CONFIG_NAME).is_file()


@dataclass(frozen=True)
class ModelSource:
    """What is to be loaded, resolved once (:func:`describe`) and read by every step after: which runtime runs it
    (spg.model.runtime), its ready forms (spg.model.ready), the model built from them."""

    name: str  # as given: a chat model's name or folder, or an artefact's folder or shipped name
    chain: tuple[Path, ...] = ()  # an SPG artefact's folders, itself first (a Stage II sits on its Stage I); () for a chat model
    config: SPGConfig | None = None  # the artefact's own config
    base: str | None = None  # the base model the last artefact of the chain sits on
    tokenizer: Path | None = None  # the artefact's tokenizer folder (:func:`tokenizer_folder`)

    @property
    def directory(self) -> Path | None:
        """The SPG artefact's folder; None for a chat model."""
        return self.chain[0] if self.chain else None

    @property
    def has_ready_forms(self) -> bool:
        """Whether this is an SPG artefact on the embedded backbone, whose ready forms spg.model.ready builds once (what
        a laptop runs, 0.5 GB in float32); any other model loads the long way rather than be copied into the cache."""
        return bool(self.chain) and self.base == EMBEDDED


def describe(name_or_dir: str | Path | None, zero_shot: bool = False) -> ModelSource:
    """``name_or_dir`` resolved: an SPG artefact (a folder, or a shipped model's name; unless ``zero_shot``) with the
    artefacts it is built from, or any chat model by name or path (None: the embedded one)."""
    if zero_shot or not is_artefact(name_or_dir):
        return ModelSource(str(name_or_dir or EMBEDDED))
    chain = [resolve_artefact(name_or_dir)]
    own = last = SPGConfig.load(chain[0])
    while last.stage1 is not None:
        chain.append(Path(last.stage1))
        last = SPGConfig.load(chain[-1])
    return ModelSource(str(name_or_dir), tuple(chain), own, last.base_model, tokenizer_folder(chain[0], own))


def portable_path(target: Path, start: Path) -> str:
    """``target`` relative to ``start`` when they share a directory below the filesystem root, else absolute.

    Relative, a Stage II artefact and its Stage I artefact can be moved together; absolute, a Stage II
    artefact far from its Stage I (only the root in common) can be moved alone.
    """
    target, start = target.resolve(), start.resolve()
    common = Path(os.path.commonpath([target, start]))
    return os.path.relpath(target, start) if common != Path(common.anchor) else str(target)
