"""The two training stages' configs, as spg.config reads and checks them (no torch here: a bad key or value is
answered before torch loads, and ``spg reproduce --dry-run`` runs the same checks).

Each stage config *is* its parts, as TRL's ``DPOConfig`` is a ``TrainingArguments``: :class:`TrainingSettings`
(the TrainingArguments fields the paper's tables set, under TrainingArguments' own names) plus, for Stage I,
:class:`~spg.model.config.ModelSettings` (the model's part, which becomes its ``SPGConfig``) and for Stage II
:class:`~spg.model.config.LoraSettings`. A stage only redeclares the defaults that differ (the paper's tables).
Why not subclass ``TrainingArguments`` itself: importing it imports torch, constructing it resolves devices and
the distributed state, and its ~150 fields would all become YAML keys with transformers' defaults instead of the
paper's. Any other TrainingArguments field goes in ``extra_training_args``, checked against its fields here.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

from spg.config import Invalid, at_least, check_device, check_model, one_of
from spg.metrics.patentscore import DEFAULT_READING, READINGS
from spg.model.config import LoraSettings, ModelSettings

AUX_REDUCTIONS = ("claim", "token")  # spg.model.losses.per_target_token
MODES = ("lpo", "dpo", "matched")  # spg.train.lpo: the §6 ablation
# TrainingSettings keys that TrainingArguments names otherwise (transformers 5 has no warmup_ratio: a warmup_steps
# below 1 is read as that fraction of the total steps; activation_checkpointing was gradient_checkpointing).
RENAMED = {"warmup_ratio": "warmup_steps", "gradient_checkpointing": "activation_checkpointing"}


@functools.cache
def _transformers_class(module: str, name: str) -> ast.ClassDef:
    """A class of transformers' source, parsed, not imported: importing transformers.training_args imports torch.
    tests/test_train_config.py checks what is read here against the imported classes."""
    # find_spec of the package alone: a submodule's would import transformers (2 s) to search it
    spec = importlib.util.find_spec("transformers")
    assert spec is not None and spec.submodule_search_locations, "transformers is not installed"
    source = Path(spec.submodule_search_locations[0]) / f"{module}.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)


def training_argument_names() -> frozenset[str]:
    """The fields of ``transformers.TrainingArguments``."""
    body = _transformers_class("training_args", "TrainingArguments").body
    return frozenset(n.target.id for n in body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name))


def scheduler_names() -> tuple[str, ...]:
    """The values of ``transformers.SchedulerType`` (``lr_scheduler_type``)."""
    body = _transformers_class("trainer_utils", "SchedulerType").body
    return tuple(n.value.value for n in body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant))


@dataclass
class TrainingSettings:
    """The ``transformers.TrainingArguments`` a stage sets, under its names (but :data:`RENAMED`)."""

    # A folder spg created for this stage, or a new or empty one (spg.files.claim_folder): checkpoints and the
    # final model are written by transformers and PEFT, which would write over whatever a user keeps there.
    output_dir: str = "runs"
    # The paper's Stage I values (Table "Stage I hyperparameters"); Stage II redeclares those its table changes.
    learning_rate: float = 2e-4
    lr_scheduler_type: str = "cosine"
    warmup_ratio: float = 0.05  # the paper's term; passed as warmup_steps (see RENAMED)
    weight_decay: float = 0.01
    per_device_train_batch_size: int = 1
    gradient_accumulation_steps: int = 8
    num_train_epochs: float = 5.0
    max_steps: int = -1
    bf16: bool = True  # true still trains on a machine without a GPU, in float32
    gradient_checkpointing: bool = True
    logging_steps: int = 10
    save_steps: int = 500
    save_total_limit: int | None = None
    seed: int = 0
    report_to: list[str] | str = "none"
    extra_training_args: dict = field(default_factory=dict)  # any other TrainingArguments field

    def check(self) -> None:
        if not self.learning_rate > 0:
            raise Invalid("learning_rate", f"must be above 0, got {self.learning_rate}")
        one_of("lr_scheduler_type", self.lr_scheduler_type, scheduler_names())
        if not 0 <= self.warmup_ratio < 1:
            raise Invalid("warmup_ratio", f"must be in [0, 1) (a fraction of the steps), got {self.warmup_ratio}")
        for key in ("per_device_train_batch_size", "gradient_accumulation_steps", "logging_steps", "save_steps"):
            at_least(key, getattr(self, key), 1)
        at_least("save_total_limit", self.save_total_limit, 1)
        if self.max_steps <= 0 and not self.num_train_epochs > 0:
            raise Invalid("num_train_epochs", f"must be above 0 unless max_steps is set, got {self.num_train_epochs}")
        names = training_argument_names()
        unknown = sorted(str(k) for k in self.extra_training_args if k not in names)
        if unknown:
            raise Invalid("extra_training_args", f"has {', '.join(unknown)}, not a field of transformers' "
                                                 "TrainingArguments")
        set_here = sorted(k for k in self.extra_training_args if k in self._own_names())
        if set_here:
            raise Invalid("extra_training_args", f"has {', '.join(set_here)}: set it as its own config key instead")

    @classmethod
    def _own_names(cls) -> set[str]:
        return {RENAMED.get(f.name, f.name) for f in fields(TrainingSettings) if f.name != "extra_training_args"}

    def training_arguments(self, **fixed: Any):
        """``transformers.TrainingArguments`` from these settings, the stage's ``fixed`` ones and
        ``extra_training_args`` (which win)."""
        import torch
        from transformers import TrainingArguments

        values = {RENAMED.get(f.name, f.name): getattr(self, f.name) for f in fields(TrainingSettings)
                  if f.name != "extra_training_args"}
        values["bf16"] = self.bf16 and torch.cuda.is_available()
        return TrainingArguments(**{**values, **fixed, **self.extra_training_args})


@dataclass
class Stage1Config(TrainingSettings, ModelSettings):
    """Everything a Stage I run needs; the defaults are the paper's Table "Stage I hyperparameters"."""

    RUN: ClassVar[str] = "stage1"  # the kind of run its output_dir holds (spg.files.claim_folder)
    train_file: list[str] | str = ""  # one source spg.data.load_records reads, or a list of them
    train_split: str | None = None  # "train": only the train side of the fixed split (spg.data.document_split)
    output_dir: str = "runs/stage1"
    max_records: int | None = None  # use only the first N records (smoke runs)
    skip_bad_records: bool = False
    # Eq. 6 weights (Eq. 4's geometry, rho and lam, is the model's: ModelSettings)
    gamma: float = 1.0
    eta: float = 0.01
    # Deviations from the paper (docs/training.md); the defaults are the paper's. aux_state_norm and pointer_query
    # are the model's (ModelSettings).
    aux_reduction: str = "claim"  # "token": L_struct, L_scope per target token (spg.model.losses.per_target_token)
    aux_warmup_ratio: float = 0.0  # γ and η ramp up from 0 over this fraction of the steps
    pointer_lr: float | None = None  # W_dep's own learning rate (None: learning_rate)

    def check(self) -> None:
        TrainingSettings.check(self)
        ModelSettings.check(self)
        if not self.tagged and (self.gamma or self.eta):
            raise Invalid("tagged", "false (the Baseline ablation) has no claim tags: set gamma=0 and eta=0")
        one_of("aux_reduction", self.aux_reduction, AUX_REDUCTIONS)
        if not 0 <= self.aux_warmup_ratio <= 1:
            raise Invalid("aux_warmup_ratio", f"must be in [0, 1], got {self.aux_warmup_ratio}")
        if self.pointer_lr is not None and not self.pointer_lr > 0:
            raise Invalid("pointer_lr", f"must be above 0 (or null: learning_rate), got {self.pointer_lr}")
        at_least("max_records", self.max_records, 1)

    def training_arguments(self):
        from spg.train.parallel import launch_arguments

        return super().training_arguments(
            save_strategy="steps",
            activation_checkpointing_kwargs={"use_reentrant": False},
            remove_unused_columns=False,  # the claim_* fields are not LM inputs but the model needs them
            # W_dep gets no gradient when γ = η = 0 (compute_loss then skips the structure terms).
            **launch_arguments(every_parameter_trained=self.gamma > 0 or self.eta > 0),
        )

    def check_available(self) -> None:
        if not self.train_file:
            raise Invalid("train_file", "is not set (give it in the config or as train_file=PATH)")
        ModelSettings.check_available(self)


@dataclass
class Stage2Config(TrainingSettings, LoraSettings):
    """Everything ``spg pairs`` and ``spg train stage2`` read; defaults are the paper's (appendix Table 8)."""

    RUN: ClassVar[str] = "stage2"
    model: str = ""  # the Stage I artefact
    data: list[str] | str = ""  # training records: one source spg.data.load_records reads, or a list
    data_split: str | None = None  # "train": only the train side of the fixed split (spg.data.document_split)
    pairs: str = "pairs.jsonl"  # the preference set P, written by `spg pairs`, read by training
    output_dir: str = "runs/stage2"
    # Pair construction (§3.3)
    num_descriptions: int = 2000  # B
    temperatures: list[float] = field(default_factory=lambda: [0.3, 1.2])
    max_new_tokens: int = 768
    max_prompt_tokens: int = 1280  # descriptions are cut to fit max_length − max_new_tokens
    kappa: float = 0.3
    delta: float = 0.1
    # PatentScore_rule reading of the reward: "calibrated" reproduces the paper's calibration (PS(gold, gold) 85.17
    # vs 85.49), the scale κ, δ and ω were set on; "appendix" is the appendix's definitions as written.
    patentscore: str = DEFAULT_READING
    sample_batch_size: int = 12
    device: str | None = None  # where candidates are sampled (default: cuda when available, else cpu)
    # LPO (Eq. 5)
    mode: str = "lpo"  # lpo | dpo | matched: the §6 ablation
    beta: float = 0.1
    lora_r: int = 8
    lora_alpha: int = 16
    max_length: int = 2048
    # optimisation (appendix Table 8); the rest are TrainingSettings' (Stage I's) values
    learning_rate: float = 5e-6
    warmup_ratio: float = 0.1
    weight_decay: float = 0.0
    per_device_train_batch_size: int = 7
    gradient_accumulation_steps: int = 4
    num_train_epochs: float = 3.0
    gradient_checkpointing: bool = False
    seed: int = 0  # the new adapter's initialisation, dropout and data order (spg pairs: the sampling)

    def check(self) -> None:
        TrainingSettings.check(self)
        LoraSettings.check(self)
        one_of("mode", self.mode, MODES)
        one_of("patentscore", self.patentscore, READINGS)
        at_least("num_descriptions", self.num_descriptions, 1)
        for key in ("max_new_tokens", "max_prompt_tokens", "sample_batch_size", "max_length"):
            at_least(key, getattr(self, key), 1)
        if not self.temperatures or not all(t > 0 for t in self.temperatures):
            raise Invalid("temperatures", f"must be a list of temperatures above 0, got {self.temperatures}")
        check_device("device", self.device)

    def check_available(self) -> None:
        """What both commands need: the Stage I model. ``spg pairs`` also needs ``data`` (it checks that itself);
        training reads only the pairs."""
        if not self.model:
            raise Invalid("model", "is not set: `model` is the Stage I artefact (spg train stage1 output)")
        from spg.pretrained import SHIPPED

        check_model("model", self.model, shipped=tuple(SHIPPED))

    @property
    def dtype(self):
        import torch

        return torch.bfloat16 if self.bf16 and torch.cuda.is_available() else torch.float32
