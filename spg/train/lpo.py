"""Legal Preference Optimization (paper §3.3, Eq. 5) and the trainer that optimises it.

Eq. 5 is the DPO sigmoid loss with each pair scaled by ω(y_l) = 1 − PS(y_l)/PS_max. :func:`lpo_loss`
returns one loss per pair; :class:`LPOTrainer` reduces them with the plain mean, ``mean(ω·l)``, which is the
expectation of Eq. 5 estimated on the batch. ``Σω·l / Σω`` would divide the severity weights' scale back out
and make LPO a step-size-neutral reweighting, which is not what the paper compares against DPO.

Modes (the §6 ablation); every batch carries each pair's ω(y_l), and :func:`objective_weights` says what the
loss is weighted with:

* ``lpo``: ω(y_l) per pair.
* ``dpo``: ω = 1, standard DPO (the collapsing ablation).
* ``matched``: the paper's magnitude-matched control, "a uniform objective whose gradient norm is rescaled to
  that of LPO": at every optimizer step the ω = 1 gradient, rescaled to the norm LPO's gradient has on the
  same batch (:meth:`LPOTrainer.training_step`). It follows DPO's direction at LPO's step size.

The reference policy is the policy with its (new, Stage II) LoRA adapter switched off, so only one copy of the
base weights exists. The trainer is a ``transformers.Trainer`` whose ``compute_loss`` is Eq. 5; batching reuses
TRL's ``DataCollatorForPreference`` (rows ``[chosen; rejected]``, right-padded, a completion mask).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from accelerate.utils import DistributedType
from trl.trainer.dpo_trainer import DataCollatorForPreference
from trl.trainer.utils import selective_log_softmax

from spg.train.checkpoint import AdapterCheckpointTrainer
from spg.train.config import MODES


def lpo_loss(
    policy_chosen_logps: torch.Tensor,
    policy_rejected_logps: torch.Tensor,
    ref_chosen_logps: torch.Tensor,
    ref_rejected_logps: torch.Tensor,
    weights: torch.Tensor,
    beta: float = 0.1,
) -> torch.Tensor:
    """Eq. 5 per pair: −ω · log σ(β·r(y_w) − β·r(y_l)), with r(y) = log π_θ(y|D) − log π_ref(y|D)."""
    chosen_reward = policy_chosen_logps - ref_chosen_logps
    rejected_reward = policy_rejected_logps - ref_rejected_logps
    return -weights * F.logsigmoid(beta * (chosen_reward - rejected_reward))


def objective_weights(omegas: torch.Tensor, mode: str) -> torch.Tensor:
    """The per-pair weight of the loss each ablation mode descends: ω(y_l) for ``lpo``; 1 for ``dpo`` and for
    ``matched``, whose gradient is then rescaled to LPO's norm (:func:`rescale_to_norm`)."""
    if mode == "lpo":
        return omegas
    if mode in ("dpo", "matched"):
        return torch.ones_like(omegas)
    raise ValueError(f"unknown LPO mode {mode!r}; expected one of {MODES}")


def rescale_to_norm(grads: Sequence[torch.Tensor], norm: torch.Tensor) -> torch.Tensor:
    """The magnitude-matched control (§6): scale the gradient in place to ``norm`` (LPO's gradient norm on the same
    batch), keeping its direction; returns its norm before. A zero gradient stays zero."""
    before = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    scale = torch.where(before > 0, norm / before, torch.zeros_like(before))
    for g in grads:
        g.mul_(scale.to(g.dtype))
    return before


def completion_logps(model, input_ids: torch.Tensor, attention_mask: torch.Tensor, completion_mask: torch.Tensor):
    """Σ_t log π(x_t | x_<t) over each row's completion tokens (the prompt and the padding excluded)."""
    logits = model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits[:, :-1]
    # float32: in bf16 a sequence's log-prob (hundreds of nats) is rounded by more than the reward margins.
    # TRL's gather − logsumexp, row by row, avoids a second (rows × length × vocab) log-softmax tensor.
    token_logps = selective_log_softmax(logits.float(), input_ids[:, 1:])
    return (token_logps * completion_mask[:, 1:]).sum(-1)


@dataclass
class PreferenceCollator(DataCollatorForPreference):
    """TRL's preference collator plus each pair's weight (``weight`` column → ``weights`` tensor)."""

    def torch_call(self, examples):
        batch = super().torch_call(examples)
        batch["weights"] = torch.tensor([float(e["weight"]) for e in examples])
        return batch


class LPOTrainer(AdapterCheckpointTrainer):
    """A Trainer whose loss is Eq. 5 on ``[chosen; rejected]`` batches from :class:`PreferenceCollator`.

    ``model`` must be a PEFT model whose only trainable adapter is the Stage II one: its reference forward runs
    inside ``model.disable_adapter()``. ``mode`` is the §6 ablation (:data:`MODES`).
    """

    # compute_loss returns a per-batch mean, so Trainer must still divide it by the accumulation steps.
    loss_is_scaled_for_ga = False

    def __init__(self, *args, beta: float = 0.1, mode: str = "lpo", **kwargs):
        super().__init__(*args, **kwargs)
        objective_weights(torch.ones(1), mode)  # an unknown mode fails here, not at the first step
        if mode == "matched" and self.accelerator.distributed_type in (DistributedType.DEEPSPEED, DistributedType.FSDP):
            raise ValueError("mode 'matched' rescales each parameter's .grad, which DeepSpeed and FSDP shard")
        self.beta = beta
        self.mode = mode
        # matched mode: LPO's gradient summed over the micro-batches of the current optimizer step
        self._lpo_grads: list[torch.Tensor] | None = None
        self._metrics: dict[str, list[float]] = defaultdict(list)

    def reference_logps(self, model, batch) -> torch.Tensor:
        """log π_ref of every row: the same module with the Stage II adapter off (no second copy of the weights)."""
        with torch.no_grad(), self.accelerator.unwrap_model(model).disable_adapter():
            return completion_logps(model, batch["input_ids"], batch["attention_mask"], batch["completion_mask"])

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        policy = completion_logps(model, inputs["input_ids"], inputs["attention_mask"], inputs["completion_mask"])
        reference = self.reference_logps(model, inputs)
        policy_chosen, policy_rejected = policy.chunk(2)
        ref_chosen, ref_rejected = reference.chunk(2)
        omegas = inputs["weights"].to(policy.dtype)
        weights = objective_weights(omegas, self.mode)
        losses = lpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, weights, self.beta)
        loss = losses.mean()
        if self.mode == "matched" and torch.is_grad_enabled():
            # LPO's objective on this batch is ω times the same per-pair losses; its gradient is a second backward
            # through the graph the uniform loss is about to be backpropagated through.
            self._accumulate_lpo_gradient(model, (omegas * losses).mean())

        chosen_reward = self.beta * (policy_chosen - ref_chosen).detach()
        rejected_reward = self.beta * (policy_rejected - ref_rejected).detach()
        self._metrics["rewards/chosen"].append(chosen_reward.mean().item())
        self._metrics["rewards/rejected"].append(rejected_reward.mean().item())
        self._metrics["rewards/margins"].append((chosen_reward - rejected_reward).mean().item())
        self._metrics["rewards/accuracies"].append((chosen_reward > rejected_reward).float().mean().item())
        self._metrics["weight"].append(weights.mean().item())
        return (loss, {"losses": losses}) if return_outputs else loss

    def _accumulate_lpo_gradient(self, model, lpo_objective: torch.Tensor) -> None:
        """Add this micro-batch's share of LPO's gradient (scaled for accumulation, as Trainer scales the loss)."""
        params = [p for p in model.parameters() if p.requires_grad]
        grads = torch.autograd.grad(
            lpo_objective / self.current_gradient_accumulation_steps, params, retain_graph=True, allow_unused=True
        )
        grads = [torch.zeros_like(p) if g is None else g for p, g in zip(params, grads)]
        self._lpo_grads = grads if self._lpo_grads is None else [a + g for a, g in zip(self._lpo_grads, grads)]

    def training_step(self, model, inputs, num_items_in_batch=None):
        """Trainer's step; in ``matched`` mode the last micro-batch of an optimizer step then rescales the
        accumulated ω = 1 gradient to the norm of LPO's gradient on the same micro-batches (before clipping)."""
        loss = super().training_step(model, inputs, num_items_in_batch)
        if self.mode == "matched" and self.accelerator.sync_gradients:
            # Under DDP, .grad is now the mean over processes; LPO's gradient (autograd.grad bypasses DDP's hooks)
            # is averaged the same way, in one all-reduce, before its norm is taken.
            lpo_grad = self.accelerator.reduce(torch.cat([g.float().flatten() for g in self._lpo_grads]), "mean")
            lpo_norm = torch.linalg.vector_norm(lpo_grad)
            grads = [p.grad for p in model.parameters() if p.requires_grad and p.grad is not None]
            uniform_norm = rescale_to_norm(grads, lpo_norm)
            self._lpo_grads = None
            self._metrics["grad_norm/lpo"].append(lpo_norm.item())
            self._metrics["grad_norm/uniform"].append(uniform_norm.item())
        return loss

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        if self._metrics:
            # Every process logs at the same steps with the same keys: the means are averaged over the processes,
            # so the main process logs the whole batch's figures, not those of its own shard.
            means = torch.tensor([sum(values) / len(values) for values in self._metrics.values()], device=self.args.device)
            logs.update(zip(self._metrics, self.accelerator.reduce(means, "mean").tolist()))
        self._metrics.clear()
        super().log(logs, start_time)
