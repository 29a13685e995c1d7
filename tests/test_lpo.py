"""The LPO loss (Eq. 5), the ablation weights, and the LPO trainer's batch log-probabilities."""

from __future__ import annotations

import math

import pytest
import torch

from spg.train.lpo import PreferenceCollator, completion_logps, lpo_loss, objective_weights, rescale_to_norm


def hand_dpo_loss(pc: float, pr: float, rc: float, rr: float, beta: float) -> float:
    """−log σ(β[(log π_θ(y_w) − log π_ref(y_w)) − (log π_θ(y_l) − log π_ref(y_l))]), written out."""
    z = beta * ((pc - rc) - (pr - rr))
    return -math.log(1.0 / (1.0 + math.exp(-z)))


def test_per_pair_loss_is_omega_times_the_hand_computed_dpo_loss():
    pc, pr, rc, rr = [-12.0, -30.0], [-20.0, -25.0], [-15.0, -28.0], [-18.0, -26.0]
    omega = [0.8, 0.25]
    losses = lpo_loss(*(torch.tensor(v) for v in (pc, pr, rc, rr, omega)), beta=0.1)
    for i in range(2):
        assert losses[i].item() == pytest.approx(omega[i] * hand_dpo_loss(pc[i], pr[i], rc[i], rr[i], 0.1), rel=1e-6)


def test_beta_scales_the_reward_difference():
    args = [torch.tensor([v]) for v in (-1.0, -9.0, -5.0, -5.0, 1.0)]
    assert lpo_loss(*args, beta=0.5).item() == pytest.approx(hand_dpo_loss(-1.0, -9.0, -5.0, -5.0, 0.5))
    assert lpo_loss(*args, beta=0.5).item() < lpo_loss(*args, beta=0.1).item()


def test_equal_policy_and_reference_give_omega_log_two():
    zeros = torch.zeros(3)
    omega = torch.tensor([1.0, 0.5, 0.0])
    assert torch.allclose(lpo_loss(zeros - 4, zeros - 7, zeros - 4, zeros - 7, omega), omega * math.log(2))


def test_objective_weights_are_omega_for_lpo_and_one_for_dpo_and_matched():
    omegas = torch.tensor([0.9, 0.5, 0.1])
    assert torch.equal(objective_weights(omegas, "lpo"), omegas)
    assert torch.equal(objective_weights(omegas, "dpo"), torch.ones(3))
    assert torch.equal(objective_weights(omegas, "matched"), torch.ones(3))
    with pytest.raises(ValueError, match="unknown LPO mode"):
        objective_weights(omegas, "ipo")


def test_rescale_to_norm_keeps_the_direction_and_sets_the_norm():
    grads = [torch.tensor([3.0, 0.0]), torch.tensor([[4.0]])]
    before = rescale_to_norm(grads, torch.tensor(2.0))
    assert before.item() == pytest.approx(5.0)
    assert torch.allclose(grads[0], torch.tensor([1.2, 0.0])) and torch.allclose(grads[1], torch.tensor([[1.6]]))
    zero = [torch.zeros(2)]
    rescale_to_norm(zero, torch.tensor(1.0))
    assert torch.equal(zero[0], torch.zeros(2))


def test_collator_stacks_chosen_then_rejected_and_carries_weights():
    collate = PreferenceCollator(pad_token_id=0)
    batch = collate(
        [
            {"prompt_ids": [5, 6], "chosen_ids": [7], "rejected_ids": [8, 9], "weight": 0.7},
            {"prompt_ids": [5], "chosen_ids": [7, 7], "rejected_ids": [9], "weight": 0.2},
        ]
    )
    assert batch["input_ids"].tolist() == [[5, 6, 7, 0], [5, 7, 7, 0], [5, 6, 8, 9], [5, 9, 0, 0]]
    assert batch["completion_mask"].tolist() == [[0, 0, 1, 0], [0, 1, 1, 0], [0, 0, 1, 1], [0, 1, 0, 0]]
    assert torch.allclose(batch["weights"], torch.tensor([0.7, 0.2]))


class _FixedLogits(torch.nn.Module):
    """A 'model' whose next-token distribution is the same softmax at every position."""

    def __init__(self, logits: torch.Tensor):
        super().__init__()
        self.row = logits

    def forward(self, input_ids, attention_mask=None, use_cache=None):
        logits = self.row.expand(*input_ids.shape, -1)
        return type("Out", (), {"logits": logits})()


def test_completion_logps_sum_only_completion_tokens():
    row = torch.tensor([0.0, 1.0, 2.0, 3.0])
    logp = row.log_softmax(-1)
    ids = torch.tensor([[0, 1, 2, 3]])
    completion = torch.tensor([[0, 0, 1, 1]])  # tokens 2 and 3 are the completion
    got = completion_logps(_FixedLogits(row), ids, torch.ones_like(ids), completion)
    assert got.item() == pytest.approx((logp[2] + logp[3]).item())
