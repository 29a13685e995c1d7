"""Antecedent basis: one checker, plain-text scope (PatentScore's Eq. ante) and per-claim forest scope (spg lint)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from spg.forest import Forest
from spg.metrics import antecedent
from spg.metrics.antecedent import AntecedentIssue, antecedent_counts, unsupported_references
from spg.parse import parse_claims

# Claim 3 depends on claim 1 but uses "the spring", which only its sibling claim 2 introduces.
SIBLING = Forest.from_parents(
    [
        "A door comprising a frame and a hinge.",
        "The door of claim 1, further comprising a spring attached to the hinge.",
        "The door of claim 1, wherein the spring is steel and the frame is oak.",
    ],
    [[], [1], [1]],
)


def test_issue_names_claim_term_and_position():
    issues = unsupported_references(SIBLING)
    assert issues == [AntecedentIssue(3, "the spring", 29, 39)]
    assert SIBLING.claims[2].text[29:39] == "the spring"


def test_forest_scope_reads_ancestors_but_not_siblings():
    # In the paper's plain-text scope "a spring" in claim 2 is earlier text, so claim 3 is fine.
    flat = " ".join(c.text for c in SIBLING.claims)
    assert unsupported_references(flat) == []
    assert [i.term for i in unsupported_references(SIBLING)] == ["the spring"]


def test_forest_scope_follows_the_whole_parent_chain():
    forest = Forest.from_parents(
        ["A door comprising a frame.", "The door of claim 1, having a spring.", "The door of claim 2, the spring and the frame being steel."],
        [[], [1], [2]],
    )
    assert unsupported_references(forest) == []


def test_multiple_dependency_draws_on_every_cited_claim():
    forest = Forest.from_parents(
        ["A door having a frame.", "A door having a spring.", "The door of claim 1 or 2, wherein the spring and the frame are steel."],
        [[], [], [1, 2]],
    )
    assert unsupported_references(forest) == []


def test_a_later_claim_is_not_an_antecedent():
    forest = Forest.from_parents(["A door, wherein the spring is steel.", "The door of claim 1, having a spring."], [[], [1]])
    assert [(i.claim, i.term) for i in unsupported_references(forest)] == [(1, "the spring")]


def test_plain_text_issues_carry_no_claim_number_and_text_offsets():
    text = "A chair having a seat, wherein the back is red."
    [issue] = unsupported_references(text)
    assert issue.claim is None and text[issue.start : issue.end] == issue.term == "the back"
    assert str(issue) == "claim set: 'the back' (chars 31-39) has no antecedent basis"


def test_noun_phrase_stops_at_stop_words_and_participles():
    [issue] = unsupported_references("A device, wherein the base layer deposited on a substrate is thin.")
    assert issue.term == "the base layer"


def test_idioms_are_not_references():
    assert antecedent_counts("A compound selected from the group consisting of a salt and the same.") == (0, 0)


def test_counts_are_total_and_resolved_for_both_scopes():
    # the door ×2 (claim references), the hinge, the spring (no basis in the forest scope), the frame
    assert antecedent_counts(SIBLING) == (5, 4)
    assert antecedent_counts(" ".join(c.text for c in SIBLING.claims)) == (5, 5)


def test_positions_stay_exact_when_lowercasing_changes_length():
    text = "İİ A cup, wherein the lid is red."  # "İ".lower() is two characters
    [issue] = unsupported_references(text)
    assert text[issue.start : issue.end] == "the lid"


def test_lints_every_real_claim_set_without_error(uspto_path):
    docs = [json.loads(line) for line in uspto_path.read_text(encoding="utf-8").splitlines()]
    flagged = 0
    for doc in docs:
        forest = parse_claims(doc["claims"])
        issues = unsupported_references(forest)
        for issue in issues:
            assert forest.by_num[issue.claim].text[issue.start : issue.end] == issue.term, doc["id"]
        flagged += bool(issues)
    # Real drafters often rely on description context ("the processor"), so most sets have some.
    assert 0 < flagged < len(docs)


def test_quantified_definite_references_need_a_quantified_introduction():
    text = "A device having at least one sensor, said at least one sensor and the one or more lamps being red."
    assert [i.term for i in unsupported_references(text)] == ["the one or more lamps"]


def test_claim_references_resolve_whatever_the_wording():
    text = "A device. The apparatus as claimed in any preceding claim, wherein the lamp is red."
    assert [i.term for i in unsupported_references(text)] == ["the lamp"]


def test_coordinated_reference_needs_every_conjunct():
    assert unsupported_references("A wall having a first layer and a second layer; the first and second layers.") == []
    assert unsupported_references("A wall having a first and second layer, the second layer being thin.") == []
    [issue] = unsupported_references("A wall having a first layer; the first and second layers are thin.")
    assert issue.term == "the first and second layers"


def test_method_step_idiom_is_not_a_reference():
    assert antecedent_counts("A method comprising the steps of: heating a wafer; and cooling the wafer.") == (1, 1)


def _read_with_offsets(text: str) -> list[tuple[int, int, bool]]:
    """The references as read with text offsets: the claim-reference test runs on the text after the noun phrase
    (what _definite_references did before it read mentions as tuples)."""
    low, introduced, out = antecedent._lowered(text), set(), []
    for i, m in enumerate(antecedent._MENTION_RE.finditer(low)):
        length, needed, keys, idiom = antecedent._phrase(m.group(2))
        if not length:
            continue
        if m.group(1)[0] not in "ts":
            introduced.update(keys)
        elif not idiom:
            end = m.start(2) + length
            claim_ref = needed == ("claim",) or antecedent._CLAIM_REF_AFTER_RE.match(low, end) is not None
            out.append((i, length, claim_ref or all(k in introduced for k in needed)))
    return out


reference_text = st.lists(
    st.sampled_from(
        ["the method", "The device", "said layer", "a layer", "a method", " of ", " as claimed in ", " according to ",
         "claim 1", "claims", "claimed", "the claim", ", ", "; ", ". ", " ", "any preceding claim", "x" * 20,
         "first and second", " and ", "İ", "wherein", "the same"]
    ),
    max_size=25,
).map("".join)  # fmt: skip


@settings(max_examples=2000, deadline=None)
@given(reference_text)
def test_claim_reference_test_on_tuples_equals_the_test_on_offsets(text):
    assert antecedent._definite_references(antecedent._lowered(text), set()) == _read_with_offsets(text)


def test_claim_reference_is_read_up_to_45_characters_after_the_noun_phrase():
    for gap in range(38, 52):  # characters between the end of "the device" and "claim"
        text = "The device of " + "z" * (gap - 5) + " claim 1."
        [(_, _, ok)] = antecedent._definite_references(antecedent._lowered(text), set())
        assert [(0, 6, ok)] == _read_with_offsets(text)
        assert ok == (gap <= 45), gap


def _scope_by_walking(forest: Forest, num: int) -> set[str]:
    """The definition the masks of spg.metrics.antecedent implement, written the slow way: the introductions of
    every earlier claim ``num`` cites, directly or through its parents."""
    order = {c.num: i for i, c in reversed(list(enumerate(forest.claims)))}
    keys: set[str] = set()
    seen: set[int] = set()
    stack = [num]
    while stack:
        child = stack.pop()
        for p in forest.by_num[child].parents:
            if p in order and order[p] < order[child] and p not in seen:
                seen.add(p)
                stack.append(p)
                antecedent._definite_references(antecedent._lowered(forest.by_num[p].text), keys)
    return keys


def _references_by_walking(forest: Forest) -> list[list[tuple[int, int, bool]]]:
    return [antecedent._definite_references(antecedent._lowered(c.text), _scope_by_walking(forest, c.num))
            for c in forest.claims]


PHRASES = ["a widget", "the widget", "a lever", "said lever", "the frame", "a frame", "an arm", "the arm"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.lists(st.integers(0, 9), max_size=3),
                          st.lists(st.sampled_from(PHRASES), min_size=1, max_size=4)), min_size=1, max_size=9))
def test_scopes_are_every_cited_ancestors_introductions_for_any_forest(claims):
    """Multiple dependency, duplicate numbers, forward and missing citations included."""
    from spg.forest import Claim

    forest = Forest.from_claims(Claim(num, " ".join(words), tuple(ps)) for num, ps, words in claims)
    assert [refs for *_, refs in antecedent._checked(forest)] == _references_by_walking(forest)


def test_a_chain_of_ten_thousand_claims_reads_each_scope_once():
    """Issue 20: the 9,999-deep chain took 30 s (every claim walked its whole ancestry); the first claim's "a
    frame" still reaches the last claim."""
    texts = ["A widget comprising a frame."] + [f"The widget of claim {n}, the frame having a part{n + 1}."
                                                for n in range(1, 10_000)]
    forest = Forest.from_parents(texts, [[]] + [[n] for n in range(1, 10_000)])
    assert unsupported_references(forest) == []
    texts[-1] = "The widget of claim 9999, with the part9999 and the part10000."
    forest = Forest.from_parents(texts, [[]] + [[n] for n in range(1, 10_000)])
    assert [i.term for i in unsupported_references(forest)] == ["the part10000"]
