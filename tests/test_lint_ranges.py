import importlib
import re

from spg.lint import find_all, ranges
from spg.lint.ranges import bounds, check_ranges
from spg.lint.rules import RULES
from spg.parse import parse_claims

BODY = ("1. A method of filtering, comprising passing a liquid through a permeable body, wherein the permeable body "
        "has a void volume from about 5% to about 50%.")


def found(text: str) -> list[int]:
    return [f.claim for f in check_ranges(parse_claims(text))]


def test_a_dependent_range_reaching_outside_its_parents_range_is_a_finding():
    # the blind devset's candidate under US7862706B2 claim 13
    text = BODY + " 2. The method of claim 1, wherein the permeable body has a void volume from about 1% to about 70%."
    findings = check_ranges(parse_claims(text))
    assert [(f.claim, f.rule, f.severity) for f in findings] == [(2, "range-outside-parent", "warning")]
    assert "claim 1 says 'the permeable body has a void volume from about 5% to about 50%'" in findings[0].message
    assert findings[0].term == "the permeable body has a void volume from about 1% to about 70%"
    assert RULES["range-outside-parent"].severity == "warning"
    assert [f.claim for f in find_all(parse_claims(text)) if f.rule == "range-outside-parent"] == [2]


def test_one_sided_bounds_compare_the_side_they_state_two_claims_up_the_chain():
    text = ("1. An element comprising a film, wherein a sub-layer is made of a material having a friction coefficient "
            "lower than 0.3. 2. The element of claim 1, further comprising a body. 3. The element of claim 2, "
            "wherein the sub-layer is made of a material having a friction coefficient lower than 0.5. 4. The "
            "element of claim 2, wherein the sub-layer is made of a material having a friction coefficient lower "
            "than 0.2.")
    assert found(text) == [3]
    # a lower bound alone under an upper one narrows: the parent's upper bound still holds
    assert found(text.replace("lower than 0.2", "of at least 0.1")) == [3]
    assert found(text.replace("lower than 0.2", "of at least 0.4")) == [3, 4]  # above the parent's upper bound


def test_a_narrower_range_is_no_finding():
    assert found(BODY + " 2. The method of claim 1, wherein the permeable body has a void volume from 10% to 40%.") == []
    assert found(BODY + " 2. The method of claim 1, wherein the permeable body has a void volume of at least 20%.") == []


def test_another_quantity_is_no_finding_and_two_quantities_in_one_clause_are_kept_apart():
    text = ("1. A tape comprising a polymer layer having a Shore A hardness of between 92 and 100 and a thickness of "
            "between 20 and 65 mm. 2. The tape of claim 1, wherein the polymer layer has a tensile strength of "
            "between 10 and 200. 3. The tape of claim 1, wherein the polymer layer has a thickness of between 30 and "
            "60 mm. 4. The tape of claim 1, wherein the polymer layer has a Shore A hardness of between 80 and 100.")
    assert found(text) == [4]
    assert [(b.quantity, b.low, b.high) for b in bounds("a hardness of between 92 and 100 and a thickness of 20 to "
                                                         "65 mm")] == [(("hardness",), 92, 100), (("thickness",), 20,
                                                                                                    65)]


def test_another_unit_is_no_finding():
    text = ("1. A method comprising annealing a wafer, wherein the annealing has a duration of between 100 and 500 "
            "milliseconds. 2. The method of claim 1, wherein the annealing has a duration of between 1 and 10 "
            "seconds. 3. The method of claim 1, wherein the annealing has a duration of between 1 and 1000 ms.")
    assert found(text) == [3]  # "ms" is "milliseconds"; seconds are not converted


def test_about_is_read_as_the_number_itself():
    text = ("1. A fuel cell comprising an electrolyte layer, wherein the electrolyte layer has a conductivity "
            "degradation not greater than about 0.2 percent per 1000 hours. 2. The fuel cell of claim 1, wherein the "
            "electrolyte layer has a conductivity degradation not greater than about 0.5 percent per 1000 hours. "
            "3. The fuel cell of claim 1, wherein the electrolyte layer has a conductivity degradation not greater "
            "than 0.2 percent per 1000 hours.")
    assert found(text) == [2]


def test_number_words_are_read_as_numbers():
    text = ("1. A device comprising reflectors, wherein the number of electrode fingers of the reflectors is eight or "
            "less. 2. The device of claim 1, wherein the number of electrode fingers of the reflectors is twelve or "
            "less. 3. The device of claim 1, wherein the number of electrode fingers of the reflectors is 6 or less.")
    assert found(text) == [2]


def test_a_range_given_as_alternatives_is_read_as_its_span():
    text = ("1. A composition comprising a compound of the formula A-(CH2)n-B, wherein n is 1 or 2. 2. The "
            "composition of claim 1, wherein n is an integer of 1 to 12. 3. The composition of claim 1, wherein n "
            "is 2.")
    assert found(text) == [2]
    assert [(b.low, b.high) for b in bounds("wherein n is 1, 3 or 2")] == [(1, 3)]


def test_what_the_words_do_not_tell_is_left_alone():
    # alternative ranges, "respectively", a condition, a number in a name, a share stated without a quantity
    for parent, child in [
        ("the thickness is 1 to 5 nm or 10 to 20 nm", "the thickness is 12 to 15 nm"),
        ("the first and second layers have thicknesses of 1 to 5 nm and 2 to 8 nm, respectively",
         "the first and second layers have thicknesses of 1 to 9 nm and 2 to 8 nm, respectively"),
        ("the valve opens when the temperature is above 100 °C", "the valve opens when the temperature is above 50 °C"),
        ("R is C1-C6 alkyl", "R is C1-C12 alkyl"),
    ]:
        text = f"1. A device comprising a layer, wherein {parent}. 2. The device of claim 1, wherein {child}."
        assert found(text) == [], parent


def test_a_share_names_what_it_is_of_after_it_and_alternative_parents_are_not_compared():
    text = ("1. An alloy comprising from about 5 atomic percent to about 30 atomic percent platinum and from 1 to 10 "
            "atomic percent ruthenium. 2. The alloy of claim 1, comprising from about 5 atomic percent to about 45 "
            "atomic percent platinum. 3. The alloy of claim 1, comprising from 2 to 8 atomic percent ruthenium. "
            "4. The alloy of claim 1 or 3, comprising from 0 to 20 atomic percent ruthenium. 5. The alloy of claim 4, "
            "comprising from 0 to 30 atomic percent ruthenium.")
    # claim 4 cites alternatives and is compared with neither; claim 5 with claim 4 alone (30 > 20): the chain stops
    assert found(text) == [2, 5]


def test_a_chain_is_read_up_to_ANCESTORS_claims_each_built_from_its_parents():
    # chains are built once along the tree (a claim's is its parent and the parent's chain), cut at ANCESTORS = 64
    def chain_of(n: int) -> str:
        steps = [f"{k}. The method of claim {k - 1}, further comprising a step {k}." for k in range(2, n)]
        last = f"{n}. The method of claim {n - 1}, wherein the permeable body has a void volume from about 1% to about 70%."
        return "\n".join([BODY, *steps, last])

    assert found(chain_of(65)) == [65]  # claim 1 is the 64th claim up
    assert found(chain_of(66)) == []  # and the 65th


def test_each_way_of_saying_a_bound_holds_a_word_its_row_is_looked_for_by():
    # a row's pattern is tried only where one of its words stands (_NEEDS): a phrase holding none would never be read
    from spg.lint.ranges import _FORMS, _LOWER, _NEEDS, _UPPER

    for pattern, needs in ((_LOWER, _NEEDS[2]), (_UPPER, _NEEDS[4])):
        for phrase in pattern.split("|"):
            assert any(word in phrase for word in needs), phrase
    assert [kind for _, kind in _FORMS] == ["both", "both", "lower", "lower", "upper", "upper", "set"]
    assert [(b.low, b.high) for b in bounds("a thickness of not more than 5 mm")] == [(None, 5.0)]
    assert [(b.low, b.high) for b in bounds("a thickness exceeding 5 mm")] == [(5.0, None)]
    assert [(b.low, b.high) for b in bounds("a thickness between 2 and 5 mm")] == [(2.0, 5.0)]


def test_the_names_a_number_may_follow_fit_the_window_bounds_searches_back():
    # bounds() looks for "claim", "SEQ ID NO:", "amino acids" … only in the last _LONGEST_NAME characters before a
    # number's spaces: a longer word added to either pattern would go unseen there
    parser = getattr(re, "_parser", None) or importlib.import_module("sre_parse")  # Python 3.10 names it sre_parse
    for pattern in (ranges._NAMED, ranges._STRETCH):
        assert pattern.pattern.endswith(r"\s*$")
        assert parser.parse(pattern.pattern.removesuffix(r"\s*$")).getwidth()[1] <= ranges._LONGEST_NAME
    assert bounds("amino acids 1 to 323 of the protein") == bounds("the amino acids 1 to 323") == []
