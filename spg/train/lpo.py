"""Legal Preference Optimization (paper §3.3, Eq. 5) and the trainer that optimises it.

Eq. 5 is the DPO sigmoid loss with each pair scaled by ω(y_l) = 1 − PS(y_l)/PS_max. :func:`lpo_loss`
returns one loss per pair; :class:`LPOTrainer` reduces them with the plain mean, ``mean(ω·l)``, which is the
expectation of Eq. 5 estimated on the batch. ``Σω·l / Σω`` would divide the severity weights' scale back out
and make LPO a step-size-neutral reweighting, which is not what the paper compares against DPO.

Modes (the §6 ablation), chosen per pair by :func:`mode_weights`:

* ``lpo``: ω(y_l) per pair.
* ``dpo``: ω = 1, standard DPO (the collapsing ablation).
* ``matched``: one constant weight for every pair, the mean ω of the pair set. The paper's control rescales a
  uniform objective's gradient norm to LPO's; matching the mean weight makes the expected loss scale, and so to
  first order the gradient scale, equal to LPO's while removing the per-pair severity ordering.

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
from trl.trainer.dpo_trainer import DataCollatorForPreference
from trl.trainer.utils import selective_log_softmax

from spg.train.checkpoint import AdapterCheckpointTrainer

MODES = ("lpo", "dpo", "matched")


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


def mode_weights(omegas: Sequence[float], mode: str) -> list[float]:
    """The per-pair weight each ablation mode trains with, given the pair set's ω(y_l) values."""
    if mode == "lpo":
        return list(omegas)
    if mode == "dpo":
        return [1.0] * len(omegas)
    if mode == "matched":
        mean = sum(omegas) / len(omegas)
        return [mean] * len(omegas)
    raise ValueError(f"unknown LPO mode {mode!r}; expected one of {MODES}")


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
    inside ``model.disable_adapter()``.
    """

    # compute_loss returns a per-batch mean, so Trainer must still divide it by the accumulation steps.
    loss_is_scaled_for_ga = False

    def __init__(self, *args, beta: float = 0.1, **kwargs):
        super().__init__(*args, **kwargs)
        self.beta = beta
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
        weights = inputs["weights"].to(policy.dtype)
        losses = lpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, weights, self.beta)
        loss = losses.mean()

        chosen_reward = self.beta * (policy_chosen - ref_chosen).detach()
        rejected_reward = self.beta * (policy_rejected - ref_rejected).detach()
        self._metrics["rewards/chosen"].append(chosen_reward.mean().item())
        self._metrics["rewards/rejected"].append(rejected_reward.mean().item())
        self._metrics["rewards/margins"].append((chosen_reward - rejected_reward).mean().item())
        self._metrics["rewards/accuracies"].append((chosen_reward > rejected_reward).float().mean().item())
        self._metrics["weight"].append(weights.mean().item())
        return (loss, {"losses": losses}) if return_outputs else loss

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        logs.update({key: sum(values) / len(values) for key, values in self._metrics.items() if values})
        self._metrics.clear()
        super().log(logs, start_time)
