"""Stage I: structure-aware fine-tuning (paper §3.1–3.2, Eq. 6; appendix Table "Stage I hyperparameters").

A ``transformers.Trainer`` subclass that overrides ``compute_loss`` only, so gradient accumulation, the
cosine schedule with warmup, bf16, activation checkpointing, periodic checkpoints and
``resume_from_checkpoint`` all come from the library, and the same script runs under ``accelerate launch``.
L_LM, L_struct, L_scope and the teacher-forced pointer accuracy are logged separately.

    spg train stage1 --config configs/cpu/smollm2-stage1.yaml max_steps=20
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch
from transformers import TrainingArguments
from transformers.trainer_utils import get_last_checkpoint

from spg.config import load_config
from spg.data import load_records
from spg.model.batch import INSTRUCTION, Collator, build_example
from spg.model.losses import stage1_loss
from spg.model.spg_model import SPGConfig, SPGModel
from spg.train.checkpoint import AdapterCheckpointTrainer


@dataclass
class Stage1Config:
    """Everything a Stage I run needs; the defaults are the paper's Table "Stage I hyperparameters"."""

    train_file: str = ""  # anything spg.data.load_records reads (USPTO jsonl, HUPD folder, ...)
    output_dir: str = "runs/stage1"
    max_records: int | None = None  # use only the first N records (smoke runs)
    skip_bad_records: bool = False
    # model
    base_model: str = "meta-llama/Meta-Llama-3-8B-Instruct"
    tagged: bool = True  # False = the "Baseline" ablation: plain numbered claims, no tags (needs gamma = eta = 0)
    instruction: str = INSTRUCTION
    max_length: int = 8192
    max_target_tokens: int = 1024
    lora_r: int = 96
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    lora_target_modules: list[str] | str = "all-linear"
    # Eq. 6 weights and Eq. 4 geometry
    gamma: float = 1.0
    eta: float = 0.01
    rho: float = 5.0
    lam: float = 0.85
    # optimisation (passed to transformers.TrainingArguments)
    learning_rate: float = 2e-4
    lr_scheduler_type: str = "cosine"
    warmup_ratio: float = 0.05
    weight_decay: float = 0.01
    per_device_train_batch_size: int = 1
    gradient_accumulation_steps: int = 8
    num_train_epochs: float = 5.0
    max_steps: int = -1
    bf16: bool = True
    gradient_checkpointing: bool = True
    logging_steps: int = 10
    save_steps: int = 500
    save_total_limit: int | None = None
    seed: int = 0
    report_to: list[str] | str = "none"
    extra_training_args: dict = field(default_factory=dict)  # any other TrainingArguments field

    def model_config(self) -> SPGConfig:
        return SPGConfig(
            base_model=self.base_model, tagged=self.tagged, instruction=self.instruction, max_length=self.max_length,
            max_target_tokens=self.max_target_tokens, rho=self.rho, lam=self.lam, lora_r=self.lora_r,
            lora_alpha=self.lora_alpha, lora_dropout=self.lora_dropout, lora_target_modules=self.lora_target_modules,
        )

    def training_arguments(self) -> TrainingArguments:
        return TrainingArguments(
            output_dir=self.output_dir,
            learning_rate=self.learning_rate,
            lr_scheduler_type=self.lr_scheduler_type,
            warmup_steps=self.warmup_ratio,  # a float < 1 is a ratio of the total steps (transformers 5)
            weight_decay=self.weight_decay,
            per_device_train_batch_size=self.per_device_train_batch_size,
            gradient_accumulation_steps=self.gradient_accumulation_steps,
            num_train_epochs=self.num_train_epochs,
            max_steps=self.max_steps,
            bf16=self.bf16,
            activation_checkpointing=self.gradient_checkpointing,
            activation_checkpointing_kwargs={"use_reentrant": False},
            logging_steps=self.logging_steps,
            save_strategy="steps",
            save_steps=self.save_steps,
            save_total_limit=self.save_total_limit,
            seed=self.seed,
            report_to=self.report_to,
            remove_unused_columns=False,  # the claim_* fields are not LM inputs but the model needs them
            **self.extra_training_args,
        )


class Stage1Trainer(AdapterCheckpointTrainer):
    """Trainer whose loss is Eq. 6: L_LM + γ·L_struct + η·L_scope, each term logged on its own."""

    def __init__(self, *args, gamma: float = 1.0, eta: float = 0.01, **kwargs):
        super().__init__(*args, **kwargs)
        self.gamma, self.eta = gamma, eta
        # compute_loss returns a per-micro-batch mean, so the Trainer must divide by the accumulation steps itself.
        self.model_accepts_loss_kwargs = False
        self._sums: dict[str, torch.Tensor] = {}

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        structure = self.gamma > 0 or self.eta > 0
        out = model(**inputs, structure=structure)
        lm = out.lm_loss.mean()
        struct = scope = torch.zeros((), device=lm.device)
        if out.struct_loss is not None:
            # Examples without dependent claims carry no pointer or scope signal; average over the others.
            has_dep = (out.pointer_total > 0).float()
            n = has_dep.sum().clamp(min=1)
            struct = (out.struct_loss * has_dep).sum() / n
            scope = (out.scope_loss * has_dep).sum() / n
            self._add("pointer_correct", out.pointer_correct.sum())
            self._add("pointer_total", out.pointer_total.sum())
        loss = stage1_loss(lm, struct, scope, self.gamma, self.eta)
        for name, value in (("loss_lm", lm), ("loss_struct", struct), ("loss_scope", scope)):
            self._add(name, value)
        self._add("micro_batches", torch.ones((), device=lm.device))
        return (loss, out) if return_outputs else loss

    def _add(self, name: str, value: torch.Tensor) -> None:
        value = value.detach().float()
        self._sums[name] = self._sums.get(name, 0) + value

    def log(self, logs: dict[str, float], *args, **kwargs) -> None:
        if self._sums and "loss" in logs:
            sums = {k: self.accelerator.reduce(v.reshape(1), "sum").item() for k, v in self._sums.items()}
            batches = max(sums.pop("micro_batches"), 1)
            for name in ("loss_lm", "loss_struct", "loss_scope"):
                logs[name] = round(sums[name] / batches, 4)
            if sums.get("pointer_total"):
                logs["pointer_acc"] = round(sums["pointer_correct"] / sums["pointer_total"], 4)
            self._sums = {}
        super().log(logs, *args, **kwargs)

    def _load_from_checkpoint(self, resume_from_checkpoint: str, model=None) -> None:
        self.accelerator.unwrap_model(model or self.model).load_trainable(resume_from_checkpoint)


def build_dataset(config: Stage1Config, model: SPGModel) -> list[dict[str, list[int]]]:
    """Tokenised Stage I examples from ``config.train_file``; records without claims are left out."""
    examples = []
    for record in load_records(config.train_file, skip_bad=config.skip_bad_records):
        if config.max_records is not None and len(examples) >= config.max_records:
            break
        if not record.claims.roots:
            continue
        examples.append(build_example(
            model.tokenizer, record.description, record.claims, config.max_length, config.max_target_tokens,
            tagged=config.tagged, instruction=config.instruction,
        ))
    if not examples:
        raise ValueError(f"{config.train_file}: no records with claims to train on")
    return examples


def check(config: Stage1Config) -> None:
    if not config.train_file:
        raise ValueError("train_file is not set (give it in the config or as train_file=PATH)")
    if not config.tagged and (config.gamma or config.eta):
        raise ValueError("tagged=false (the Baseline ablation) has no claim tags: set gamma=0 and eta=0")


def train(config: Stage1Config, resume: str | bool | None = None, model: SPGModel | None = None) -> Path:
    """Run Stage I and write the final artefact to ``output_dir/final``; returns that directory.

    ``resume``: True resumes from the last checkpoint in ``output_dir``, a path from that checkpoint.
    """
    check(config)
    args = config.training_arguments()
    dtype = torch.bfloat16 if config.bf16 and torch.cuda.is_available() else torch.float32
    model = model or SPGModel.from_base(config.model_config(), dtype=dtype)
    dataset = build_dataset(config, model)
    trainer = Stage1Trainer(
        model=model, args=args, train_dataset=dataset, data_collator=Collator(model.tokenizer.pad_token_id),
        gamma=config.gamma, eta=config.eta,
    )
    if resume is True:
        resume = get_last_checkpoint(config.output_dir)
        if resume is None:
            raise FileNotFoundError(f"--resume: no checkpoint-* folder in {config.output_dir}")
    trainer.train(resume_from_checkpoint=resume or None)
    final = Path(config.output_dir) / "final"
    trainer.save_model(str(final))
    return final


def main(config_path: str | None, overrides: Sequence[str] = (), resume: str | bool | None = None) -> int:
    config = load_config(Stage1Config, config_path, overrides)
    final = train(config, resume)
    print(f"Stage I model written to {final}")
    return 0
