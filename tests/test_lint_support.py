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
    text = "3D-printed \u00c5ngstr\u00f6m x2 caf\u00e9 \ud800 KELVIN\u212a 42abc a1b2"
    assert Vocabulary(text).sorted == ["a1b2", "abc", "caf", "d", "kelvink", "m", "ngstr", "printed", "x2"]


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
