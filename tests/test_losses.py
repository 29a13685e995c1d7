import pytest
import torch

from spg.model.losses import per_target_token, stage1_loss, warmup_factor


def test_per_target_token_turns_a_mean_over_dependents_into_a_sum_per_target_token():
    per_claim = torch.tensor([2.0, 0.0, 1.5])
    dependents = torch.tensor([3, 0, 4])
    labels = torch.full((3, 8), -100)
    labels[0, 2:] = 1  # 6 target tokens (labels are read shifted by one, as the LM loss reads them)
    labels[2, 5:] = 1  # 3
    assert per_target_token(per_claim, dependents, labels).tolist() == pytest.approx([2.0 * 3 / 6, 0.0, 1.5 * 4 / 3])


def test_per_target_token_is_zero_for_an_example_without_target_tokens():
    labels = torch.full((1, 4), -100)
    assert per_target_token(torch.tensor([1.0]), torch.tensor([2]), labels).tolist() == [2.0]
    assert per_target_token(torch.tensor([0.0]), torch.tensor([0]), labels).tolist() == [0.0]


def test_auxiliary_weights_ramp_linearly_over_the_warmup_then_stay_at_one():
    assert [warmup_factor(s, 100, 0.1) for s in (0, 5, 10, 50)] == [0.0, 0.5, 1.0, 1.0]
    assert warmup_factor(0, 100, 0.0) == 1.0  # the paper: full weight from the first step


def test_stage1_loss_is_eq6():
    assert stage1_loss(torch.tensor(2.0), torch.tensor(3.0), torch.tensor(10.0), 0.5, 0.01).item() == pytest.approx(3.6)
