"""Content alignment of generated to gold claims, and the DEA it gives (aligned_parents)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spg.forest import Claim, Forest
from spg.metrics.align import align_claims, content_words, similarities, word_weights
from spg.metrics.structure import aligned_parents, dependency_edge_accuracy, generated_parents, root_parents

NOUNS = [
    "anchor", "bracket", "cable", "damper", "element", "flange", "gasket", "hinge", "insert", "joint", "knob",
    "lever", "magnet", "nozzle", "opening", "panel", "quill", "rail", "spring", "tube", "valve", "washer",
    "yoke", "zipper", "axle", "bearing", "clamp", "dowel", "emitter", "filter", "gear", "housing", "lens",
    "motor", "nut", "orifice", "piston", "rivet", "sensor", "tab", "roller", "shaft", "spindle", "sleeve",
    "socket", "strap", "switch", "wheel", "wire",
]
STRANGERS = ["apple", "banana", "cherry", "grape", "lemon", "mango", "olive", "peach", "pear", "plum"]


def claim_text(num: int, parent: int | None, words: list[str]) -> str:
    body = " ".join(words)
    return f"A device comprising a {body}." if parent is None else f"The device of claim {parent}, wherein the {body}."


def gold_forest(parents: list[int | None]) -> Forest:
    """Claim i (1-based) has its own three nouns, so it resembles no other claim."""
    return Forest.from_claims(
        Claim(i, claim_text(i, p, list(NOUNS[3 * (i - 1) : 3 * i])), () if p is None else (p,))
        for i, p in enumerate(parents, start=1)
    )


def renumbered(claims: list[tuple[str, int | None]]) -> Forest:
    """(text, parent index or None) in order → claims 1..n, parents as numbers."""
    return Forest.from_claims(
        Claim(i, text, () if p is None else (p + 1,)) for i, (text, p) in enumerate(claims, start=1)
    )


@st.composite
def gold_and_output(draw):
    """A gold forest and a generated copy of it whose parents are partly wrong (each an earlier claim or None)."""
    n = draw(st.integers(2, 12))
    parents = [None] + [draw(st.one_of(st.none(), st.integers(1, i - 1))) for i in range(2, n + 1)]
    gold = gold_forest(parents)
    generated = [(c.text, draw(st.one_of(st.none(), st.integers(0, i - 1))) if i else None)
                 for i, c in enumerate(gold.claims)]
    return gold, generated


@settings(max_examples=150, deadline=None)
@given(gold_and_output(), st.data())
def test_inserting_a_claim_changes_dea_only_for_the_edges_it_touches(case, data):
    gold, output = case
    at = data.draw(st.integers(0, len(output)))  # the new claim becomes index `at`
    adopted = set(data.draw(st.lists(st.integers(at, len(output) - 1), unique=True))) if at < len(output) else set()
    new_parent = data.draw(st.one_of(st.none(), st.integers(0, at - 1))) if at else None
    shift = [i + (i >= at) for i in range(len(output))]
    after = [(text, at if i in adopted else None if p is None else shift[p]) for i, (text, p) in enumerate(output)]
    after.insert(at, (claim_text(0, new_parent, STRANGERS[:3]), new_parent))

    before, now = aligned_parents(gold, renumbered(output)), aligned_parents(gold, renumbered(after))
    touched = {i + 1 for i in adopted}  # the gold claims these generated copies align to
    assert {g: p for g, p in now.items() if g not in touched} == {g: p for g, p in before.items() if g not in touched}
    assert set(now) == set(before)  # the inserted claim aligns to nothing
    if not touched:
        assert dependency_edge_accuracy(gold, now) == dependency_edge_accuracy(gold, before)


@settings(max_examples=150, deadline=None)
@given(gold_and_output(), st.data())
def test_deleting_a_claim_changes_dea_only_for_the_edges_it_touches(case, data):
    gold, output = case
    gone = data.draw(st.integers(0, len(output) - 1))
    heir = output[gone][1]  # the deleted claim's children move up to its parent
    shift = [i - (i > gone) for i in range(len(output))]
    after = [
        (text, None if p is None else shift[p] if p != gone else None if heir is None else shift[heir])
        for i, (text, p) in enumerate(output)
        if i != gone
    ]

    before, now = aligned_parents(gold, renumbered(output)), aligned_parents(gold, renumbered(after))
    touched = {gone + 1} | {i + 1 for i, (_, p) in enumerate(output) if p == gone}
    assert set(now) == set(before) - {gone + 1}
    assert {g: p for g, p in now.items() if g not in touched} == {g: p for g, p in before.items() if g not in touched}


def test_an_extra_claim_after_claim_1_costs_positional_dea_but_not_aligned_dea():
    gold = gold_forest([None, 1, 2, 1, 4])
    copy = [(c.text, None if c.parent is None else c.parent - 1) for c in gold.claims]
    extra = renumbered([copy[0], (claim_text(2, 1, STRANGERS[:3]), 0)] + [(t, p if p == 0 else p + 1) for t, p in copy[1:]])
    assert dependency_edge_accuracy(gold, aligned_parents(gold, extra)).counts["all"] == (4, 4)
    assert dependency_edge_accuracy(gold, generated_parents(gold, extra)).counts["all"] == (1, 4)


def test_a_left_out_claim_is_wrong_and_its_children_keep_their_alignment():
    gold = gold_forest([None, 1, 2, 1])
    output = renumbered([(gold.claims[0].text, None), (gold.claims[2].text, 0), (gold.claims[3].text, 0)])
    parents = aligned_parents(gold, output)
    assert parents == {1: None, 3: 1, 4: 1}  # claim 2 left out; claim 3 now names claim 1 (gold: 2)
    dea = dependency_edge_accuracy(gold, parents)
    assert dea.counts["all"] == (1, 3) and dea.coverage == pytest.approx(2 / 3)


def test_claims_are_aligned_in_order_one_to_one_above_the_similarity_floor():
    gold = ["A chair comprising a seat and a leg.", "The chair of claim 1, wherein the seat is round.",
            "The chair of claim 1, wherein the leg is made of oak."]
    generated = ["A chair comprising a seat and a leg.", "A boat with a sail.",
                 "The chair of claim 1, wherein the leg is made of oak.", "The chair of claim 1, wherein the leg is oak."]
    assert align_claims(gold, generated) == {0: 0, 2: 2}  # the boat matches nothing; the oak leg only once


def test_similarity_ignores_claim_numbers_and_boilerplate_and_weighs_words_by_rarity_among_gold_claims():
    gold = [content_words(t) for t in ("A chair with a seat.", "The chair of claim 1 with a leg.")]
    weights, _ = word_weights(gold)
    assert weights["chair"] == 0.0  # in every gold claim: it tells no claim apart
    generated = [content_words(t) for t in ("The chair of claim 7 with a leg.", "The chair of claim 1.")]
    assert similarities(gold, generated) == [[0.0, 1.0], [0.0, 0.0]]


def test_always_root_predicts_the_root_of_each_claims_tree():
    gold = Forest.from_parents(["a", "b", "c", "d", "e"], [[], [1], [2], [], [4]])
    assert root_parents(gold) == {1: None, 2: 1, 3: 1, 4: None, 5: 4}
    assert dependency_edge_accuracy(gold, root_parents(gold)).counts["all"] == (2, 3)
