import math

import torch

from spg.model.scope import claim_means, scope_loss, scope_radius


def test_radius_shrinks_geometrically_with_depth_from_rho_at_root():
    r = scope_radius(torch.tensor([1, 2, 3]), rho=5.0, lam=0.85)
    assert torch.allclose(r, torch.tensor([5.0, 4.25, 5.0 * 0.85**2]))


def test_claim_means_average_the_span_only():
    hidden = torch.arange(12.0).reshape(1, 6, 2)
    z = claim_means(hidden, torch.tensor([[1, 3]]), torch.tensor([[3, 6]]))
    assert torch.allclose(z[0, 0], hidden[0, 1:3].mean(0))
    assert torch.allclose(z[0, 1], hidden[0, 3:6].mean(0))


def test_scope_loss_is_zero_inside_the_radius():
    z = torch.tensor([[[0.0, 0.0], [3.0, 0.0]]])  # distance 3 < r(depth 2) = 4.25
    loss = scope_loss(z, torch.tensor([[-1, 0]]), torch.tensor([[1, 2]]), rho=5.0, lam=0.85)
    assert loss.item() == 0.0


def test_scope_loss_matches_eq4_outside_the_radius():
    z = torch.tensor([[[0.0, 0.0], [6.0, 8.0], [6.0, 8.0 + 9.0]]])  # child at 10, grandchild 9 from its parent
    parents, depths = torch.tensor([[-1, 0, 1]]), torch.tensor([[1, 2, 3]])
    expected = ((10 - 5.0 * 0.85) ** 2 + (9 - 5.0 * 0.85**2) ** 2) / 2
    loss = scope_loss(z, parents, depths, rho=5.0, lam=0.85)
    assert math.isclose(loss.item(), expected, rel_tol=1e-6)


def test_scope_loss_ignores_roots_and_padding():
    z = torch.tensor([[[0.0], [100.0], [0.0]]])
    loss = scope_loss(z, torch.tensor([[-1, -1, -1]]), torch.tensor([[1, 1, 0]]), rho=1.0, lam=0.5)
    assert loss.item() == 0.0
