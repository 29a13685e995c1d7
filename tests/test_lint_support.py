import sys

from spg.lint.support import Vocabulary, check_description_support, fold
from spg.parse import parse_claims

DESCRIPTION = "A chair has a seat and curved rockers. The rocker coupling is circumferential to the frame."


def test_a_claim_term_missing_from_the_description_is_a_warning_at_its_first_place():
    forest = parse_claims("1. A chair comprising a seat and a headrest. 2. The chair of claim 1, wherein the "
                          "headrest is red.")
    [finding] = check_description_support(forest, DESCRIPTION)
    assert (finding.rule, finding.severity, finding.claim, finding.term) == ("description-support", "warning", 1,
                                                                           "headrest")
    assert forest.by_num[1].text[finding.start : finding.end] == "headrest"


def test_inflections_shared_stems_and_claim_language_count_as_supported():
    forest = parse_claims("1. A chair comprising a plurality of rockers, a first seat, the couplings and a "
                          "circumference; the method comprising a step.")
    assert check_description_support(forest, DESCRIPTION) == []


def test_only_the_head_of_a_term_is_checked():
    # "opposite" is a relation, "legs" the thing named
    forest = parse_claims("1. A chair comprising an opposite seat and the rockers coupled to the frame.")
    assert check_description_support(forest, DESCRIPTION) == []


def test_a_descriptions_words_are_its_runs_of_letters_and_digits_from_their_first_letter():
    # lower-cased first ("\u212a", the Kelvin sign, is a "k"); any other character, a lone surrogate too, ends a word
    text = "3D-printed \u00c5ngstr\u00f6m x2 caf\u00e9 \ud800 KELVIN\u212a 42abc a1b2 Tab"
    vocabulary = Vocabulary(text)
    for word in ("printed", "ngstr", "caf", "kelvink", "abc", "a1b2", "tab"):  # each a word, looked up whole
        assert vocabulary.supports(word), word
    for word in ("rinted", "x2d", "kelvan", "bc", "b2", "tabz", "angstr"):
        assert not vocabulary.supports(word), word
    assert Vocabulary("a 42abcd").supports("abcd") and not Vocabulary("a42abcd").supports("abcd")  # "a42abcd" is one


def test_the_characters_that_lower_case_into_ascii_are_the_ones_the_vocabulary_lower_cases_for():
    from spg.lint.support import _LOWER_TO_ASCII

    found = [chr(c) for c in range(128, sys.maxunicode + 1) if any(x.isascii() for x in chr(c).lower())]
    assert tuple(found) == _LOWER_TO_ASCII
    # lower-cased, I with a dot above is "i" and a combining dot, which ends the word
    assert Vocabulary("\u0130ron").supports("ron") and not Vocabulary("\u0130ron").supports("iron")


def test_fold_removes_inflections_the_same_way_on_both_sides():
    assert fold("couplings") == fold("coupled") == fold("coupling")
    assert fold("batteries") == fold("battery")


def test_granted_us_claims_get_few_support_warnings(uspto_path):
    from spg.data import load_records

    claims = warnings = 0
    for record in load_records(uspto_path):
        if record.fields.get("kind") == "grant":
            claims += len(record.claims)
            warnings += len(check_description_support(record.claims, record.description))
    assert claims > 3000 and warnings / claims < 0.06  # measured 0.041 (benchmarks/lint_rules.py)


def test_adjectives_adverbs_and_verbs_are_not_taken_for_the_term_they_follow():
    description = "An axis, a container, a member and a signal."  # no controller, nor any word around the heads
    forest = parse_claims("1. A wireless remote controller on an axis perpendicular to a vertically oriented "
                          "container, wherein the member belongs to the signal sent by the controller.")
    assert [f.message for f in check_description_support(forest, description)] == [
        "'controller' (in 'wireless remote controller') appears nowhere in the description, in no form"
    ]


def test_determiners_open_terms_in_any_case_a_long_s_included():
    from spg.lint.support import _term_heads

    text = "THE WIDGET, One Or More gears, \u017faid sprocket, At least one pulley and a Plurality of cams"
    assert [head.group(0) for head, _, _ in _term_heads(text)] == ["WIDGET", "gears", "sprocket", "pulley",
                                                                   "Plurality", "cams"]
