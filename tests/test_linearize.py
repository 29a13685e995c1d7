from hypothesis import given, settings
from hypothesis import strategies as st

from spg.forest import Claim, Forest
from spg.linearize import EOT, STRUCTURE_TOKENS, canonical, linearize, parse_tagged
from spg.parse import parse_claims
from spg.render import render

NOUNS = ["device", "method", "system", "assembly", "composition", "apparatus"]
WORDS = ["a", "lever", "spring", "housing", "coupled", "to", "the", "frame", "and", "rotating", "shaft", "valve"]


def claim_text(noun: str, parents: tuple[int, ...], words: list[str]) -> str:
    body = " ".join(words) or "a part"
    if not parents:
        return f"A {noun} comprising: {body}; and a base."
    if len(parents) == 1:
        return f"The {noun} of claim {parents[0]}, wherein {body}."
    listed = ", ".join(map(str, parents[:-1])) + f" or {parents[-1]}"
    return f"The {noun} according to any one of claims {listed}, wherein {body}."


@st.composite
def forests(draw) -> Forest:
    n = draw(st.integers(1, 14))
    claims = []
    for num in range(1, n + 1):
        independent = num == 1 or draw(st.booleans().map(lambda b: b and draw(st.integers(0, 3)) == 0))
        parents: tuple[int, ...] = ()
        if not independent:
            k = draw(st.sampled_from([1, 1, 1, 2, 3]))
            parents = tuple(sorted(set(draw(st.lists(st.integers(1, num - 1), min_size=1, max_size=k)))))
        words = draw(st.lists(st.sampled_from(WORDS), max_size=8))
        claims.append(Claim(num, claim_text(draw(st.sampled_from(NOUNS)), parents, words), parents))
    return Forest.from_claims(claims)


def structure(forest: Forest) -> list[tuple[int, tuple[int, ...], str]]:
    return [(c.num, c.parents, c.text) for c in forest.claims]


def test_linearize_follows_eq1_depth_first_children_by_number():
    forest = Forest.from_parents(
        [
            "A chair comprising: a seat.",
            "The chair of claim 1, wherein a.",
            "The chair of claim 1, wherein b.",
            "The chair of claim 2, wherein c.",
            "A table comprising: a top.",
            "The table of claim 5, wherein d.",
        ],
        [[], [1], [1], [2], [], [5]],
    )
    s = linearize(forest)
    assert s.claims == [1, 2, 4, 3, 5, 6]
    assert s.parents == [None, 0, 1, 0, None, 4]
    assert s.depths == [1, 2, 3, 2, 1, 2]
    assert s.trees == [0, 0, 0, 0, 1, 1]
    assert s.text == (
        "<ind>A chair comprising: a seat.</ind>"
        "<dep>The chair of claim 1, wherein a.</dep>"
        "<dep>The chair of claim 2, wherein c.</dep>"
        "<dep>The chair of claim 1, wherein b.</dep>"
        "<sep><ind>A table comprising: a top.</ind>"
        "<dep>The table of claim 5, wherein d.</dep><eot>"
    )


def test_linearize_renumbers_back_references_in_serialisation_order():
    forest = Forest.from_parents(
        [
            "A pump comprising: a rotor.",
            "The pump of claim 1, wherein x.",
            "The pump of claim 1, wherein y.",
            "The pump of claim 2, wherein z.",
        ],
        [[], [1], [1], [2]],
    )
    ordered = canonical(forest)
    # old claim 4 (child of 2) is now claim 3; old claim 3 is now claim 4 and still cites claim 1
    assert [(c.num, c.parents) for c in ordered.claims] == [(1, ()), (2, (1,)), (3, (2,)), (4, (1,))]
    assert ordered.claims[2].text == "The pump of claim 2, wherein z."


def test_linearize_drops_claims_with_broken_chains():
    forest = Forest.from_parents(
        ["A cup.", "The cup of claim 9, wherein x.", "The cup of claim 2, wherein y."], [[], [9], [2]]
    )
    s = linearize(forest)
    assert s.claims == [1]
    assert s.text == "<ind>A cup.</ind><eot>"


def test_parse_tagged_reads_pointer_parents():
    seq = "<ind>A lamp.</ind><dep>The lamp, wherein x.</dep><dep>The lamp, wherein y.</dep><eot>"
    parsed = parse_tagged(seq, parents=[None, 0, 1])
    assert parsed.valid
    assert [c.parents for c in parsed.forest.claims] == [(), (1,), (2,)]


def test_parse_tagged_ignores_model_control_tokens():
    parsed = parse_tagged("<|im_start|><ind>A lamp.</ind><dep>The lamp of claim 1.</dep><eot><|eot_id|>")
    assert parsed.valid and [c.parents for c in parsed.forest.claims] == [(), (1,)]


def test_parse_tagged_reports_truncation():
    parsed = parse_tagged("<ind>A lamp.</ind><dep>The lamp of claim 1, wher")
    assert not parsed.valid
    assert any("truncated" in r for r in parsed.reasons)
    assert len(parsed.forest) == 1  # the complete claim is still recovered


def test_parse_tagged_reports_dangling_reference():
    parsed = parse_tagged("<ind>A lamp.</ind><dep>The lamp of claim 3.</dep><eot>")
    assert not parsed.valid and any("does not precede" in r for r in parsed.reasons)


def test_parse_tagged_reports_dependent_before_independent():
    parsed = parse_tagged("<dep>The lamp of claim 1.</dep><ind>A lamp.</ind><eot>")
    assert not parsed.valid and any("before any independent" in r for r in parsed.reasons)


def test_parse_tagged_reports_unbalanced_tags():
    assert not parse_tagged("<ind>A lamp.<dep>x</dep><eot>").valid
    assert not parse_tagged("<ind>A lamp.</dep><eot>").valid
    assert not parse_tagged("<ind>A lamp.</ind><sep><eot>").valid


def test_parse_tagged_requires_an_independent_claim():
    parsed = parse_tagged(EOT)
    assert not parsed.valid and any("independent" in r for r in parsed.reasons)


def test_parse_tagged_rejects_empty_claims_and_stray_text():
    assert not parse_tagged("<ind> </ind><eot>").valid
    assert not parse_tagged("<ind>A lamp.</ind>oops<eot>").valid


def test_dependent_claim_without_reference_gets_one_when_rendered():
    forest = Forest.from_claims([Claim(1, "A lamp comprising: a bulb."), Claim(2, "The lamp, wherein x.", (1,))])
    assert render(forest).splitlines()[1] == "2. The lamp according to claim 1, wherein x."


def test_render_makes_text_agree_with_pointer_parent():
    forest = Forest.from_claims(
        [Claim(1, "A lamp."), Claim(2, "The lamp of claim 1."), Claim(3, "The lamp of claim 1, wherein x.", (2,))]
    )
    assert render(forest).splitlines()[2] == "3. The lamp of claim 2, wherein x."


@settings(max_examples=300, deadline=None)
@given(forests())
def test_render_then_parse_returns_the_same_forest(forest):
    assert structure(parse_claims(render(forest))) == structure(canonical(forest))


@settings(max_examples=300, deadline=None)
@given(forests())
def test_linearize_then_parse_back_returns_the_same_forest(forest):
    s = linearize(forest)
    from_text = parse_tagged(s.text)
    assert from_text.valid, from_text.reasons
    assert structure(from_text.forest) == structure(canonical(forest))
    from_pointer = parse_tagged(s.text, parents=s.parents)
    assert [c.parent for c in from_pointer.forest.claims] == [c.parent for c in canonical(forest).claims]
    assert from_text.trees == s.trees


@settings(max_examples=200, deadline=None)
@given(forests())
def test_linearize_is_idempotent_under_canonical_numbering(forest):
    assert linearize(canonical(forest)).text == linearize(forest).text


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(STRUCTURE_TOKENS), st.text(max_size=30)), max_size=20),
    st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(-3, 30)), max_size=20)),
)
def test_parse_tagged_never_raises(pieces, parents):
    parsed = parse_tagged("".join(pieces), parents)
    assert parsed.valid == (not parsed.reasons)
