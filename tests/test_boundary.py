import torch

from spg.generation.boundary import BoundaryTemperature


def test_rows_after_a_claim_end_are_rescaled_to_the_boundary_temperature_and_others_untouched():
    end = 7
    processor = BoundaryTemperature(1.0, [end], base=0.1)
    ids = torch.tensor([[1, 2, end], [1, end, 3]])
    scores = torch.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    out = processor(ids, scores)
    # after transformers' warper divides by the base temperature 0.1, row 0 stands at temperature 1.0
    assert torch.allclose(out[0] / 0.1, scores[0])
    assert torch.equal(out[1], scores[1])


def test_per_row_base_temperatures_are_each_undone_at_a_boundary():
    processor = BoundaryTemperature(0.5, [9], base=[0.3, 1.2])
    ids = torch.tensor([[9], [9]])
    scores = torch.ones(2, 4)
    out = processor(ids, scores)
    assert torch.allclose(out / torch.tensor([[0.3], [1.2]]), scores / 0.5)


def test_boundary_temperature_must_be_positive():
    try:
        BoundaryTemperature(0.0, [1], base=0.1)
    except ValueError as err:
        assert "must be positive" in str(err)
    else:
        raise AssertionError("a zero boundary temperature was accepted")
