"""Stage I: structure-aware fine-tuning (paper §3.1–3.2, Eq. 6; appendix Table "Stage I hyperparameters").

A ``transformers.Trainer`` subclass that overrides ``compute_loss`` (and, for the pointer head's own learning
rate, ``create_optimizer``), so gradient accumulation, the cosine schedule with warmup, bf16, activation
checkpointing, periodic checkpoints and ``resume_from_checkpoint`` all come from the library, and the same
script runs under ``accelerate launch``. L_LM, L_struct, L_scope and the teacher-forced pointer accuracy are
logged separately.

The defaults are the paper's. Four keys deviate from it where the paper's recipe breaks a small backbone
(measured in docs/training.md, "Why Stage I broke"): ``aux_state_norm``, ``aux_reduction``,
``aux_warmup_ratio`` and ``pointer_lr``; configs/repro/ sets them, configs/paper/ keeps the paper's values.

    spg train stage1 --config configs/cpu/smollm2-stage1.yaml max_steps=20
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import torch
from transformers import set_seed

from spg.data import load_records
from spg.files import claim_folder, whole_folder, write_artefact
from spg.model.batch import Collator
from spg.model.losses import per_target_token, stage1_loss, warmup_factor
from spg.model.spg_model import SPGModel
from spg.train.checkpoint import AdapterCheckpointTrainer, last_checkpoint
from spg.train.config import AUX_REDUCTIONS, Stage1Config


def parameter_groups(
    model: torch.nn.Module, decay_names: Sequence[str], weight_decay: float, pointer_lr: float
) -> list[dict]:
    """AdamW groups: the Trainer's two (decayed, not decayed) plus the pointer head on ``pointer_lr``.

    Why W_dep needs its own rate: Adam moves every entry by about the learning rate per step whatever the
    gradient's size, and the gradient of a bilinear score is close to rank one, so one step changes a
    logit h̃ᵀ ΔW h̃' by up to lr·‖h̃‖₁² ≈ lr·d² (unit-RMS states): 66 at lr = 2e-4 on SmolLM2 (d = 576),
    ~3,000 on Llama-3-8B (d = 4,096), against initial logits of order one.
    """
    pointer = {id(p) for p in model.pointer.parameters()}
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    return [
        {"params": [p for n, p in named if id(p) not in pointer and n in decay_names], "weight_decay": weight_decay},
        {"params": [p for n, p in named if id(p) not in pointer and n not in decay_names], "weight_decay": 0.0},
        {"params": [p for _, p in named if id(p) in pointer], "weight_decay": weight_decay, "lr": pointer_lr},
    ]


class Stage1Trainer(AdapterCheckpointTrainer):
    """Trainer whose loss is Eq. 6: L_LM + γ·L_struct + η·L_scope, each term logged on its own."""

    def __init__(
        self,
        *args,
        gamma: float = 1.0,
        eta: float = 0.01,
        aux_reduction: str = "claim",
        aux_warmup_ratio: float = 0.0,
        pointer_lr: float | None = None,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        if aux_reduction not in AUX_REDUCTIONS:
            raise ValueError(f"aux_reduction must be one of {AUX_REDUCTIONS}, got {aux_reduction!r}")
        self.gamma, self.eta = gamma, eta
        self.aux_reduction, self.aux_warmup_ratio, self.pointer_lr = aux_reduction, aux_warmup_ratio, pointer_lr
        # compute_loss returns a per-micro-batch mean, so the Trainer must divide by the accumulation steps itself.
        self.model_accepts_loss_kwargs = False
        self._sums: dict[str, torch.Tensor] = {}

    def create_optimizer(self, model=None):
        if self.optimizer is None and self.pointer_lr is not None:
            target = model if model is not None else self.model
            optimizer_cls, kwargs = self.get_optimizer_cls_and_kwargs(self.args, target)
            groups = parameter_groups(target, self.get_decay_parameter_names(target), self.args.weight_decay,
                                      self.pointer_lr)
            self.optimizer = optimizer_cls(groups, **kwargs)
        return super().create_optimizer(model)

    def aux_weight(self) -> float:
        """The factor on γ and η at the current step (1 unless ``aux_warmup_ratio`` is set)."""
        return warmup_factor(self.state.global_step, self.state.max_steps, self.aux_warmup_ratio)

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        structure = self.gamma > 0 or self.eta > 0
        out = model(**inputs, structure=structure)
        lm = out.lm_loss.mean()
        struct = scope = logged_struct = logged_scope = torch.zeros((), device=lm.device)
        if out.struct_loss is not None:
            # The logged terms are always the paper's (mean over dependents, examples without any left out),
            # so runs with either reduction can be compared.
            # Under data parallelism the mean is over the examples with dependents of the *global* batch: DDP
            # averages the processes' gradients, so each divides its sum by the global count over the processes.
            has_dep = (out.pointer_total > 0).float()
            n = self.accelerator.reduce(has_dep.sum(), "sum").clamp(min=1) / self.accelerator.num_processes
            logged_struct = (out.struct_loss * has_dep).sum() / n
            logged_scope = (out.scope_loss * has_dep).sum() / n
            if self.aux_reduction == "token":
                struct = per_target_token(out.struct_loss, out.pointer_total, inputs["labels"]).mean()
                scope = per_target_token(out.scope_loss, out.pointer_total, inputs["labels"]).mean()
            else:
                struct, scope = logged_struct, logged_scope
            self._add("pointer_correct", out.pointer_correct.sum())
            self._add("pointer_total", out.pointer_total.sum())
        weight = self.aux_weight()
        loss = stage1_loss(lm, struct, scope, weight * self.gamma, weight * self.eta)
        for name, value in (("loss_lm", lm), ("loss_struct", logged_struct), ("loss_scope", logged_scope)):
            self._add(name, value)
        self._add("aux_weight", torch.tensor(weight, device=lm.device))
        self._add("micro_batches", torch.ones((), device=lm.device))
        return (loss, out) if return_outputs else loss

    def _add(self, name: str, value: torch.Tensor) -> None:
        value = value.detach().float()
        self._sums[name] = self._sums.get(name, 0) + value

    def log(self, logs: dict[str, float], *args, **kwargs) -> None:
        if self._sums and "loss" in logs:
            sums = {k: self.accelerator.reduce(v.reshape(1), "sum").item() for k, v in self._sums.items()}
            batches = max(sums.pop("micro_batches"), 1)
            for name in ("loss_lm", "loss_struct", "loss_scope", "aux_weight"):
                logs[name] = round(sums[name] / batches, 4)
            if sums.get("pointer_total"):
                logs["pointer_acc"] = round(sums["pointer_correct"] / sums["pointer_total"], 4)
            self._sums = {}
        super().log(logs, *args, **kwargs)

    # Private, and the only hook: an SPGModel is neither a PreTrainedModel nor a PeftModel, which is all the Trainer
    # can reload. tests/test_transformers_internals.py fails, naming it, if transformers stops calling it.
    def _load_from_checkpoint(self, resume_from_checkpoint: str, model=None) -> None:
        self.accelerator.unwrap_model(model or self.model).load_trainable(resume_from_checkpoint)


def build_dataset(config: Stage1Config, model: SPGModel) -> list[dict[str, list[int]]]:
    """Tokenised Stage I examples from ``config.train_file``; records without claims are left out."""
    examples = []
    records = load_records(config.train_file, skip_bad=config.skip_bad_records, split=config.train_split)
    for record in records:
        if config.max_records is not None and len(examples) >= config.max_records:
            break
        if not record.claims.roots:
            continue
        examples.append(model.example(record.description, record.claims))  # model built from config.model_config()
    if not examples:
        raise ValueError(f"{config.train_file}: no records with claims to train on")
    return examples


def truncation_summary(examples: Sequence[dict], config: Stage1Config) -> str:
    """One line: how many targets lost claims to the target budget (what ``spg train stage1`` prints)."""
    cut = [e["claims_dropped"] for e in examples if e["claims_dropped"]]
    budget = "no cap" if config.max_target_tokens is None else f"at most {config.max_target_tokens} tokens"
    return (f"{len(examples)} training examples; {len(cut)} targets cut ({budget} within max_length "
            f"{config.max_length}, target_truncation={config.target_truncation}), {sum(cut)} claims left out")


def train(config: Stage1Config, resume: str | bool | None = None, model: SPGModel | None = None) -> Path:
    """Run Stage I and write the final artefact to ``output_dir/final``; returns that directory.

    ``resume``: True resumes from the last checkpoint in ``output_dir``, a path from that checkpoint.
    """
    config.check()  # load_config has, unless the config was built in code
    claim_folder(config.output_dir, config.RUN)  # before anything is written in it (spg.files)
    args = config.training_arguments()
    dtype = torch.bfloat16 if config.bf16 and torch.cuda.is_available() else torch.float32
    set_seed(config.seed)  # before the model: LoRA's and any other initialisation draw from it
    model = model or SPGModel.from_base(config.model_config(), dtype=dtype)
    dataset = build_dataset(config, model)
    print(truncation_summary(dataset, config), flush=True)
    trainer = Stage1Trainer(
        model=model, args=args, train_dataset=dataset, data_collator=Collator(model.tokenizer.pad_token_id),
        gamma=config.gamma, eta=config.eta, aux_reduction=config.aux_reduction,
        aux_warmup_ratio=config.aux_warmup_ratio, pointer_lr=config.pointer_lr,
    )
    if resume is True:
        resume = last_checkpoint(config.output_dir)
        if resume is None:
            raise FileNotFoundError(f"--resume: no whole checkpoint-* folder in {config.output_dir}")
    trainer.train(resume_from_checkpoint=resume or None)
    final = Path(config.output_dir) / "final"
    with whole_folder(final, write=trainer.args.should_save) as folder:  # every process: save_model may gather
        trainer.save_model(str(folder))
        save_log_history(trainer, folder)
    return final


def save_log_history(trainer, directory: Path) -> None:
    """The run's logged losses (``log_history.json``) beside the artefact they trained."""
    if trainer.args.should_save:
        write_artefact(directory / "log_history.json", json.dumps(trainer.state.log_history, indent=1) + "\n")


def main(config: Stage1Config, resume: str | bool | None = None) -> int:
    """``spg train stage1``, its config read and checked (spg.config.load_config)."""
    final = train(config, resume)
    print(f"Stage I model written to {final}")
    return 0
