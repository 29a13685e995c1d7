import pytest

from spg.forest import Forest
from spg.metrics.structure import (
    DEA,
    Ratio,
    dependency_edge_accuracy,
    generated_parents,
    plain_forest,
    pointer_agreement,
    read_output,
    valid_output,
    valid_rate,
)


def deep_forest() -> Forest:
    """1 ← 2 ← 3 ← 4 ← 5 ← 6 ← 7 (depths 1..7), 8 cites 1 and 2 (single parent 1, depth 2), 9 ← 10."""
    parents = [[], [1], [2], [3], [4], [5], [6], [1, 2], [], [9]]
    return Forest.from_parents([f"claim text {i}" for i in range(1, 11)], parents)


def test_dea_counts_by_gold_depth_with_deep_claims_pooled():
    predicted = {2: 1, 3: 2, 4: 2, 5: 4, 6: 5, 7: 1, 8: 2, 9: None}  # 10 has no prediction
    dea = dependency_edge_accuracy(deep_forest(), predicted)
    assert dea.counts == {"all": (4, 8), "d2": (1, 3), "d3": (1, 1), "d4": (0, 1), "d5": (1, 1), "d6+": (1, 2)}
    assert dea.overall == pytest.approx(0.5)
    assert dea.by_depth == {"d2": pytest.approx(1 / 3), "d3": 1.0, "d4": 0.0, "d5": 1.0, "d6+": 0.5}


def test_dea_gold_parent_of_a_multiply_dependent_claim_is_the_lowest_cited():
    gold = deep_forest()
    assert dependency_edge_accuracy(gold, {8: 1}).counts["d2"] == (1, 3)
    assert dependency_edge_accuracy(gold, {8: 2}).counts["d2"] == (0, 3)


def test_dea_coverage_counts_claims_that_received_a_prediction():
    assert dependency_edge_accuracy(deep_forest(), {2: 1, 3: None}).coverage == pytest.approx(2 / 8)


def test_dea_skips_gold_claims_with_a_broken_chain():
    gold = Forest.from_parents(["a", "b", "c"], [[], [5], [2]])  # 2 cites a missing claim, 3 hangs below it
    assert dependency_edge_accuracy(gold, {2: 5, 3: 2}).counts["all"] == (0, 0)


def test_dea_of_a_corpus_pools_claims_not_documents():
    one = dependency_edge_accuracy(deep_forest(), {n: n - 1 for n in range(2, 8)})  # 6 of 8 right
    two = dependency_edge_accuracy(Forest.from_parents(["a", "b"], [[], [1]]), {})  # 0 of 1
    total = sum([one, two], DEA())
    assert total.counts["all"] == (6, 9)
    assert total.overall == pytest.approx(6 / 9)  # the mean of document scores would be 0.375


def test_generated_parents_aligns_by_claim_number_and_reads_back_references():
    gold = Forest.from_parents(["A x.", "The x of claim 1.", "The x of claim 2."], [[], [1], [2]])
    generated = plain_forest("1. A x. 2. The x of claim 1. 3. The x of claim 1 or 2. 4. The x of claim 3.")
    parents = generated_parents(gold, generated)
    assert parents == {1: None, 2: 1, 3: 1}  # claim 4 has no gold counterpart; claim 3's lowest citation is 1
    assert dependency_edge_accuracy(gold, parents).counts["all"] == (1, 2)


def test_generated_claims_missing_from_the_output_count_as_wrong():
    gold = Forest.from_parents(["A x.", "The x of claim 1.", "The x of claim 1."], [[], [1], [1]])
    dea = dependency_edge_accuracy(gold, generated_parents(gold, plain_forest("1. A x. 2. The x of claim 1.")))
    assert dea.counts["all"] == (1, 2)
    assert dea.coverage == 0.5


def test_pointer_agreement_counts_dependent_claims_whose_text_names_the_pointer_parent():
    assert pointer_agreement([None, 0, 0, 1], [None, 0, 1, 1]) == Ratio(2, 3)
    assert pointer_agreement([None], [None]).value is None


VALID = "1. A chair comprising: a seat; and a leg. 2. The chair of claim 1, wherein the seat is round."


def test_plain_claim_set_with_resolved_references_is_valid():
    assert valid_output(VALID).valid


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("no numbers, just a sentence about chairs.", "no numbered claim"),
        (VALID[:-1] + " and", "truncated"),
        (VALID + " 3. The chair of claim 1, wherein the seat is round.", "repeats claim 2"),
        ("1. The chair of claim 2. 2. The chair of claim 1, wherein x.", "no well-formed independent claim"),
        ("1. A chair comprising a seat. 2. The chair of claim 3, wherein x. 3. The chair of claim 1.", "precede"),
        ("1. A chair comprising a seat. 3. The chair of claim 1, wherein x.", "not 1..2 in order"),
    ],
)
def test_plain_output_is_invalid_for_each_appendix_condition(text, reason):
    validity = valid_output(text)
    assert not validity.valid
    assert any(reason in r for r in validity.reasons), validity.reasons


def test_tagged_output_is_judged_by_parse_tagged():
    seq = "<ind>A chair comprising a seat.</ind><dep>The chair of claim 1, wherein x.</dep><eot>"
    assert valid_output(seq).valid
    truncated = valid_output(seq.removesuffix("<eot>"))
    assert not truncated.valid and any("<eot>" in r for r in truncated.reasons)


def test_valid_rate_is_the_fraction_of_valid_outputs():
    assert valid_rate([VALID, VALID[:-1], VALID, ""]) == Ratio(2, 4)


def test_tagged_output_with_pointer_takes_parents_from_the_pointer():
    seq = "<ind>A chair comprising a seat.</ind><dep>The chair of claim 1, wherein x.</dep><dep>The chair, wherein y.</dep><eot>"
    assert not read_output(seq).validity.valid  # the third claim names no parent in its text
    with_pointer = read_output(seq, [None, 0, 1])
    assert with_pointer.validity.valid
    assert [c.parent for c in with_pointer.forest] == [None, 1, 2]
