import math

import torch

from spg.model.pointer import (
    PointerHead,
    candidate_mask,
    greedy_parents,
    pointer_hits,
    pointer_logits,
    structure_loss,
)


def test_w_dep_starts_as_scaled_identity():
    head = PointerHead(16)
    assert torch.allclose(head.weight, torch.eye(16) / 4.0)


def test_pointer_logits_equal_hand_computed_bilinear_scores():
    torch.manual_seed(0)
    d = 4
    head = PointerHead(d)
    with torch.no_grad():
        head.weight.copy_(torch.randn(d, d))
    hidden = torch.randn(1, 10, d)
    open_pos, close_pos = torch.tensor([[0, 3, 6]]), torch.tensor([[2, 5, 9]])
    trees = torch.tensor([[0, 0, 0]])
    mask = candidate_mask(trees, torch.ones(1, 3, dtype=torch.bool))
    logits = pointer_logits(head, hidden, open_pos, close_pos, mask)
    w = head.weight.detach()
    for i in range(3):
        for j in range(3):
            if j < i:
                expected = sum(
                    hidden[0, open_pos[0, i], a] * w[a, b] * hidden[0, close_pos[0, j], b]
                    for a in range(d) for b in range(d)
                )
                assert math.isclose(logits[0, i, j].item(), expected.item(), rel_tol=1e-5, abs_tol=1e-5)
            else:
                assert logits[0, i, j] == float("-inf")


def test_candidates_are_only_earlier_claims_of_the_same_tree():
    trees = torch.tensor([[0, 0, 0, 1, 1, 2, 0]])
    real = torch.tensor([[1, 1, 1, 1, 1, 1, 0]], dtype=torch.bool)
    mask = candidate_mask(trees, real)[0]
    for i in range(7):
        for j in range(7):
            allowed = j < i and trees[0, i] == trees[0, j] and real[0, i] and real[0, j]
            assert mask[i, j].item() == allowed, (i, j)


def test_greedy_parent_never_points_forward_or_across_trees():
    torch.manual_seed(1)
    trees = torch.tensor([[0, 0, 0, 1, 1, 1]])
    mask = candidate_mask(trees, torch.ones(1, 6, dtype=torch.bool))
    for _ in range(20):
        raw = torch.randn(1, 6, 6) * 100  # forward/cross-tree scores would win if the mask leaked
        parents = greedy_parents(raw.masked_fill(~mask, float("-inf")))[0]
        for i, p in enumerate(parents.tolist()):
            if i in (0, 3):
                assert p == -1
            else:
                assert p < i and trees[0, p] == trees[0, i]


def test_structure_loss_is_mean_cross_entropy_over_dependents():
    logits = torch.full((1, 3, 3), float("-inf"))
    logits[0, 1, 0] = 0.3
    logits[0, 2, :2] = torch.tensor([1.0, 2.0])
    parents = torch.tensor([[-1, 0, 0]])
    expected = (0.0 + -math.log(math.exp(1.0) / (math.exp(1.0) + math.exp(2.0)))) / 2
    assert math.isclose(structure_loss(logits, parents).item(), expected, rel_tol=1e-6)


def test_structure_loss_is_zero_without_dependents():
    logits = torch.full((2, 2, 2), float("-inf"))
    assert structure_loss(logits, torch.full((2, 2), -1)).tolist() == [0.0, 0.0]


def test_pointer_hits_count_correct_dependents():
    logits = torch.full((1, 3, 3), float("-inf"))
    logits[0, 1, 0] = 0.0
    logits[0, 2, :2] = torch.tensor([1.0, 2.0])
    correct, total = pointer_hits(logits, torch.tensor([[-1, 0, 0]]))
    assert (correct.item(), total.item()) == (1, 2)


def test_close_query_scores_each_claims_own_closing_state_against_earlier_closing_states():
    torch.manual_seed(0)
    d = 4
    head = PointerHead(d, query="close")
    hidden = torch.randn(1, 10, d)
    open_pos, close_pos = torch.tensor([[0, 3, 6]]), torch.tensor([[2, 5, 9]])
    mask = candidate_mask(torch.tensor([[0, 0, 0]]), torch.ones(1, 3, dtype=torch.bool))
    logits = pointer_logits(head, hidden, open_pos, close_pos, mask)
    closes = hidden[0, close_pos[0]]
    expected = (closes @ head.weight.detach() @ closes.T).masked_fill(~mask[0], float("-inf"))
    assert torch.allclose(logits[0], expected, atol=1e-5)
    # the opening states are not read at all under the close query
    moved = hidden.clone()
    moved[0, open_pos[0]] += 100.0
    assert torch.equal(pointer_logits(head, moved, open_pos, close_pos, mask), logits)


def test_unknown_pointer_query_is_rejected():
    try:
        PointerHead(4, query="middle")
    except ValueError as err:
        assert "pointer_query must be one of" in str(err)
    else:
        raise AssertionError("PointerHead accepted an unknown query position")
