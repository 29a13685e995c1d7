"""Sampling by position (spg.generation.sampling): a draw of softmax(scores / T), fixed by the seed and the position."""

import torch

from spg.generation.sampling import PositionalSampling

VOCAB = 5


def draw(sampler: PositionalSampling, scores: torch.Tensor, position: int) -> torch.Tensor:
    """The tokens a greedy step picks after the sampler, at ``position`` (the length of the ids it is called with)."""
    return sampler(torch.zeros(scores.shape[0], position, dtype=torch.long), scores).argmax(-1)


def test_the_argmax_after_the_noise_is_a_draw_of_the_tempered_softmax():
    torch.manual_seed(0)
    scores = torch.tensor([[2.0, 1.0, 0.0, -1.0, float("-inf")]])
    sampler = PositionalSampling(0.7)
    counts = torch.bincount(torch.cat([draw(sampler, scores, p) for p in range(1, 20001)]), minlength=VOCAB)
    expected = torch.softmax(scores / 0.7, -1)[0]
    assert counts[-1] == 0  # a masked token is never drawn
    assert torch.allclose(counts / counts.sum(), expected, atol=0.01)


def test_a_position_draws_the_same_token_whatever_was_drawn_before():
    torch.manual_seed(1)
    sampler = PositionalSampling(1.0)
    scores = torch.zeros(3, VOCAB)
    first = draw(sampler, scores, 42)
    for position in (7, 43, 41, 42, 100):  # assisted generation checks positions out of order, and again
        draw(sampler, scores, position)
    assert torch.equal(draw(sampler, scores, 42), first)
    assert not all(torch.equal(draw(sampler, scores, p), first) for p in range(43, 53))  # positions differ


def test_the_seed_rules_the_draws():
    scores = torch.zeros(2, VOCAB)
    draws = []
    for seed in (3, 3, 4):
        torch.manual_seed(seed)
        draws.append(torch.stack([draw(PositionalSampling(1.0), scores, p) for p in range(1, 30)]))
    assert torch.equal(draws[0], draws[1]) and not torch.equal(draws[0], draws[2])


def test_each_row_is_divided_by_its_own_temperature():
    scores = torch.tensor([[1.0, 2.0], [1.0, 2.0]])
    torch.manual_seed(2)
    tempered = PositionalSampling([0.5, 2.0])(torch.zeros(2, 9, dtype=torch.long), scores)
    torch.manual_seed(2)
    noise = PositionalSampling(1.0)(torch.zeros(2, 9, dtype=torch.long), torch.zeros(2, 2))
    torch.testing.assert_close(tempered - noise, torch.tensor([[2.0, 4.0], [0.5, 1.0]]))


def test_only_the_top_k_and_the_top_p_nucleus_are_drawn_as_generate_draws_them():
    from transformers import GenerationConfig

    torch.manual_seed(3)
    scores = torch.tensor([[4.0, 3.0, 2.0, 1.0, 0.0]])
    top2 = PositionalSampling(1.0, top_k=2)
    assert {int(draw(top2, scores, p)) for p in range(1, 500)} == {0, 1}
    nucleus = PositionalSampling(1.0, top_k=0, top_p=0.8)  # softmax: 0.64, 0.24, 0.09, ...: 0.8 needs two
    assert {int(draw(nucleus, scores, p)) for p in range(1, 500)} == {0, 1}
    default = PositionalSampling.for_model(1.0, GenerationConfig())
    assert [type(w).__name__ for w in default.warpers] == ["TopKLogitsWarper"] and default.warpers[0].top_k == 50
    own = PositionalSampling.for_model(1.0, GenerationConfig(top_k=5, top_p=0.9))
    assert [(type(w).__name__, getattr(w, "top_k", None)) for w in own.warpers] == [
        ("TopKLogitsWarper", 5), ("TopPLogitsWarper", None)]
