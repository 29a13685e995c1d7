"""PatentScore_rule (appendix "PatentScore_rule: Implementation Details"): each sub-metric on hand-computed cases."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spg.linearize import STRUCTURE_TOKENS
from spg.metrics.patentscore import (
    PS_MAX,
    READINGS,
    antecedent_consistency,
    claim_count_match,
    claim_spans,
    content_overlap,
    count_claims,
    length_ratio,
    lpo_weight,
    patent_score,
    prepare_text,
    preprocess,
    structural_pattern,
)

NUMBERED = (
    "1. A chair comprising: a seat; and a leg attached to the seat. "
    "2. The chair of claim 1, wherein the leg is wooden. "
    "3. The chair of claim 2, wherein the seat is padded."
)
TAGGED = (
    "<ind>A chair comprising: a seat; and a leg attached to the seat.</ind>"
    "<dep>The chair of claim 1, wherein the leg is wooden.</dep>"
    "<dep>The chair of claim 2, wherein the seat is padded.</dep><eot><|eot_id|>"
)


# --- preprocessing ---------------------------------------------------------------------------------------


def test_preprocess_strips_structure_tags_and_model_tokens():
    assert preprocess(TAGGED) == (
        "A chair comprising: a seat; and a leg attached to the seat. The chair of claim 1, wherein the leg is "
        "wooden. The chair of claim 2, wherein the seat is padded."
    )
    assert preprocess("x<|im_end|></s>") == "x"


def test_preprocess_collapses_whitespace():
    assert preprocess("  1.  A\n\tchair \n") == "1. A chair"


def test_preprocess_keeps_claims_apart_where_a_tag_joined_them():
    assert preprocess("<ind>A x.</ind><dep>The x of claim 1.</dep>") == "A x. The x of claim 1."


def test_preprocess_removes_every_structure_tag():
    text = preprocess(" word ".join(STRUCTURE_TOKENS))
    assert not any(t in text for t in STRUCTURE_TOKENS) and text == "word word word word word"


# --- Claim Count Match (Eq. count) ---------------------------------------------------------------------


def test_count_claims_reads_sequential_numbering():
    assert count_claims(NUMBERED) == 3


def test_count_claims_ignores_back_reference_numbers_and_repeated_numbers():
    text = "1. A x comprising y. 2. The x of claim 1. 3. The x of claim 2. 2. The x of claim 1."
    assert count_claims(text) == 3


def test_count_claims_finds_a_claim_after_one_without_final_period():
    assert count_claims("1. A x comprising a formula (2): 11 2. The x of claim 1, wherein y.") == 2


def test_count_claims_does_not_start_numbering_mid_sentence():
    # "is 1. The" is not a claim number: numbering must start at a sentence boundary.
    assert count_claims("A x wherein n is 1. The x of claim 1, wherein y.") == 2


def test_count_claims_of_unnumbered_text_counts_sentences_that_start_with_a_capital():
    assert count_claims("A x comprising y. The x of claim 1, wherein z. A w comprising v. The w of claim 3.") == 4


def test_count_claims_is_format_neutral():
    assert count_claims(TAGGED) == count_claims(NUMBERED) == 3


def test_count_claims_of_empty_text_is_zero():
    assert count_claims("") == count_claims("<eot>") == 0


def test_claim_spans_give_number_and_offsets():
    text = preprocess(NUMBERED)
    spans = claim_spans(text)
    assert [n for n, _, _ in spans] == [1, 2, 3]
    assert text[spans[1][1] : spans[1][2]] == "2. The chair of claim 1, wherein the leg is wooden. "


def test_claim_count_match_three_against_four_is_1_125():
    four = NUMBERED + " 4. The chair of claim 1, wherein the seat is red."
    assert claim_count_match(NUMBERED, four) == pytest.approx(3 / 4 * 1.5)
    assert claim_count_match(four, NUMBERED) == pytest.approx(1.125)  # symmetric: over-generation costs the same


def test_claim_count_match_is_zero_for_an_empty_candidate():
    assert claim_count_match("", NUMBERED) == 0.0
    assert claim_count_match("", "") == 0.0


# --- Structural Pattern (Eq. struct) -------------------------------------------------------------------


STRUCTURE = (
    "1. A chair comprising: a seat; and a leg. "
    "2. The chair of claim 1, wherein the leg is wooden. "
    "3. The chair of claim 5, wherein the seat is red."  # cites a later claim: not a back-reference
)


def test_structural_pattern_hand_computed_in_the_appendix_reading():
    sp = structural_pattern(STRUCTURE, reading="appendix")
    assert sp.alpha_pre == 0.4
    assert sp.alpha_semi == pytest.approx(0.3 * 1 / 3)  # the fraction of claims with a semicolon
    assert sp.alpha_dep == pytest.approx(0.3 * 1 / 2)
    assert sp.total == pytest.approx(0.65)


def test_structural_pattern_hand_computed_in_the_calibrated_reading():
    sp = structural_pattern(STRUCTURE, reading="calibrated")
    assert (sp.alpha_pre, sp.alpha_semi) == (0.4, 0.3)  # α_semi per claim set: the set has a semicolon
    assert sp.alpha_dep == pytest.approx(0.3 * 1 / 2)
    assert structural_pattern(STRUCTURE) == sp  # the default reading


def test_alpha_pre_needs_a_colon_terminated_transitional_phrase_in_the_appendix_reading():
    assert structural_pattern("1. A chair comprising a seat.", "appendix").alpha_pre == 0.0
    assert structural_pattern("1. A chair consisting of: a seat.", "appendix").alpha_pre == 0.4
    # only the first claim's preamble counts
    assert structural_pattern("1. A chair with a seat. 2. A table comprising: a top.", "appendix").alpha_pre == 0.0


def test_alpha_pre_accepts_any_transitional_phrase_in_the_calibrated_reading():
    assert structural_pattern("1. A chair comprising a seat.", "calibrated").alpha_pre == 0.4
    assert structural_pattern("1. A chair characterised in that it folds.", "calibrated").alpha_pre == 0.4
    assert structural_pattern("1. A chair with a comprisingly soft seat.", "calibrated").alpha_pre == 0.0
    assert structural_pattern("1. A chair with a seat. 2. A table comprising a top.", "calibrated").alpha_pre == 0.0


def test_an_unknown_reading_is_an_error_naming_the_readings():
    with pytest.raises(ValueError, match="calibrated.*appendix"):
        patent_score(NUMBERED, NUMBERED, reading="paper")


def test_alpha_dep_accepts_any_preceding_claim():
    text = "1. A x comprising: y. 2. A x according to any one of the preceding claims, wherein z."
    assert structural_pattern(text).alpha_dep == pytest.approx(0.3)


def test_alpha_dep_is_zero_for_a_single_claim():
    assert structural_pattern("1. A chair comprising: a seat; a leg.").alpha_dep == 0.0


def test_structural_pattern_is_format_neutral():
    assert structural_pattern(TAGGED) == structural_pattern(NUMBERED)


# --- Antecedent Consistency (Eq. ante) -----------------------------------------------------------------


def test_antecedent_consistency_hand_computed():
    # D = {the seat, the leg, the back}; "the back" has no "a back" before it.
    text = "A chair comprising a seat and a leg, wherein the seat is attached to the leg and the back is red."
    assert antecedent_consistency(text) == pytest.approx(2 / 3)


def test_antecedent_consistency_treats_said_as_definite():
    assert antecedent_consistency("A chair having a seat, said seat and said back being red.") == pytest.approx(1 / 2)


def test_antecedent_consistency_needs_the_introduction_earlier():
    assert antecedent_consistency("The seat is red. A seat is blue.") == 0.0


def test_antecedent_consistency_resolves_claim_references():
    # "The table of claim 1" refers to a claim, not an element: resolved although no "a table" precedes it.
    text = "1. A chair. 2. The table of claim 1, wherein the chair is red."
    assert antecedent_consistency(text, "appendix") == 1.0
    assert antecedent_consistency(text, "calibrated") == 0.5  # claim 2 alone never introduced "a chair"


def test_antecedent_consistency_reads_each_claim_alone_in_the_calibrated_reading():
    text = "1. A chair having a seat, the seat being red. 2. The chair of claim 1, wherein the seat is soft."
    assert antecedent_consistency(text, "appendix") == 1.0  # introductions anywhere earlier in the text
    assert antecedent_consistency(text, "calibrated") == pytest.approx(2 / 3)  # claim 2's "the seat" has none


def test_antecedent_consistency_reads_the_forest_as_the_linter_does_in_the_precise_reading():
    # Claim 3 depends on claim 2, which depends on claim 1: "the seat" has basis through the chain, "the arm"
    # (introduced only in claim 2's sibling) has none, and "the determining step" names an earlier action.
    text = (
        "1. A method comprising determining a seat position of a chair having a seat. "
        "2. The method of claim 1, wherein the chair has an arm. "
        "3. The method of claim 1, wherein the seat and the arm are red, and the determining step is repeated."
    )
    assert antecedent_consistency(text, "precise") == pytest.approx(3 / 4)  # the seat, the arm, the determining step, the chair
    assert antecedent_consistency(text, "calibrated") != antecedent_consistency(text, "precise")


def test_precise_reading_changes_only_antecedent_consistency():
    text = NUMBERED + " 3. The chair of claim 1, wherein the back is red."
    precise, calibrated = patent_score(text, text, "precise"), patent_score(text, text, "calibrated")
    assert (precise.count, precise.struct, precise.length, precise.overlap) == (
        calibrated.count, calibrated.struct, calibrated.length, calibrated.overlap
    )
    assert structural_pattern(text, "precise") == structural_pattern(text, "calibrated")


def test_antecedent_consistency_is_zero_without_definite_references():
    assert antecedent_consistency("A chair comprising a seat and a leg.") == 0.0
    assert antecedent_consistency("") == 0.0


def test_antecedent_consistency_matches_bigram_for_modified_references():
    assert antecedent_consistency("A device having a first layer and the second layer.") == 0.0
    assert antecedent_consistency("A device having a first layer and the first layer.") == 1.0
    assert antecedent_consistency("A device having a first layer, the layer being thin.") == 1.0


def test_antecedent_consistency_singularises_plural_references():
    assert antecedent_consistency("A device having a plurality of layers, the layer being thin.") == 1.0


# --- Length Ratio (Eq. len) and Content Overlap (Eq. overlap) ------------------------------------------


def test_length_ratio_hand_computed():
    assert length_ratio("a b c", "a b c d e f") == pytest.approx(3 / 6 * 0.5)
    assert length_ratio("a b c d e f", "a b c") == pytest.approx(0.25)


def test_length_ratio_counts_words_after_preprocessing():
    assert length_ratio("<ind>a  b</ind><eot>", "a b") == 0.5


def test_content_overlap_is_lowercased_unigram_set_recall():
    # W(y) = {the, dog, sat, down}; W(ŷ) ∩ W(y) = {the, sat}
    assert content_overlap("The cat sat sat", "the dog sat down") == pytest.approx(2 / 4 * 0.5)


def test_content_overlap_is_recall_not_precision():
    assert content_overlap("a b c d e f g h", "a b") == 0.5


def test_content_overlap_of_an_empty_reference_is_zero():
    assert content_overlap("a b", "") == 0.0


# --- composite (Eq. composite), normalisation and ω ---------------------------------------------------


def test_patent_score_is_the_sum_of_the_sub_metrics():
    ref = NUMBERED + " 4. The chair of claim 1, wherein the seat is red."
    ps = patent_score(TAGGED, ref)
    assert ps.count == claim_count_match(TAGGED, ref)
    assert ps.struct == structural_pattern(TAGGED).total
    assert ps.ante == antecedent_consistency(TAGGED)
    assert ps.length == length_ratio(TAGGED, ref)
    assert ps.overlap == content_overlap(TAGGED, ref)
    assert ps.total == pytest.approx(ps.count + ps.struct + ps.ante + ps.length + ps.overlap)
    assert ps.normalized == pytest.approx(ps.total / 4.5 * 100)


def test_patent_score_of_a_claim_set_against_itself_hand_computed_in_the_appendix_reading():
    ps = patent_score(NUMBERED, NUMBERED, reading="appendix")
    # count 1.5, length 0.5, overlap 0.5; struct 0.4 + 0.3·1/3 + 0.3·2/2; ante: the seat, the leg, the seat,
    # the chair ×2 (claim references), the leg, the seat → all 7 resolved.
    assert (ps.count, ps.length, ps.overlap) == (1.5, 0.5, 0.5)
    assert ps.struct == pytest.approx(0.8)
    assert ps.ante == 1.0
    assert ps.total == pytest.approx(4.3)


def test_patent_score_of_a_claim_set_against_itself_hand_computed_in_the_calibrated_reading():
    ps = patent_score(NUMBERED, NUMBERED, reading="calibrated")
    # struct 0.4 + 0.3 (the set has a semicolon) + 0.3; ante claim by claim: claim 1's "the seat" resolved,
    # "The chair of claim 1/2" resolved, claim 2's "the leg" and claim 3's "the seat" not: 3 of 5.
    assert ps.struct == pytest.approx(1.0)
    assert ps.ante == pytest.approx(3 / 5)
    assert ps.total == pytest.approx(4.1)
    assert patent_score(NUMBERED, NUMBERED) == ps  # the default reading


def test_patent_score_is_format_neutral_for_structure_and_antecedents():
    tagged, numbered = patent_score(TAGGED, NUMBERED), patent_score(NUMBERED, NUMBERED)
    assert (tagged.count, tagged.struct, tagged.ante) == (numbered.count, numbered.struct, numbered.ante)


def test_patent_score_against_a_prepared_reference_equals_the_score_against_its_text():
    ref = NUMBERED + " 4. The chair of claim 1, wherein the seat is red."
    prepared = prepare_text(ref)
    assert patent_score(TAGGED, prepared) == patent_score(TAGGED, ref)
    assert patent_score(prepare_text(TAGGED), prepared) == patent_score(TAGGED, ref)
    assert (prepared.words, len(prepared.spans)) == (len(preprocess(ref).split()), 4)


@pytest.mark.parametrize(("ps", "weight"), [(0.0, 1.0), (4.5, 0.0), (2.25, 0.5), (3.6, 0.2)])
def test_lpo_weight_is_one_minus_ps_over_ps_max(ps, weight):
    assert lpo_weight(ps) == pytest.approx(weight)


def test_lpo_weight_rejects_scores_outside_the_range():
    with pytest.raises(ValueError, match=r"\[0, 4.5\]"):
        lpo_weight(5.0)


# Claim-like pieces (numbers, determiners, tags) mixed with arbitrary unicode.
_PIECES = st.sampled_from(["1. ", "2. ", " 3. ", ". ", "; ", ":", "the ", "said ", "a ", "claim ", "İ", "A ", "X"])
_TEXT = st.lists(_PIECES | st.sampled_from(STRUCTURE_TOKENS) | st.text(max_size=6), max_size=60).map("".join)


@pytest.mark.parametrize("reading", READINGS)
@settings(max_examples=200, deadline=None)
@given(cand=_TEXT, ref=_TEXT)
def test_patent_score_stays_in_bounds_for_arbitrary_text(reading, cand, ref):
    ps = patent_score(cand, ref, reading)
    assert 0.0 <= ps.count <= 1.5 and 0.0 <= ps.struct <= 1.0 and 0.0 <= ps.ante <= 1.0
    assert 0.0 <= ps.length <= 0.5 and 0.0 <= ps.overlap <= 0.5
    assert 0.0 <= ps.total <= PS_MAX + 1e-12 and 0.0 <= ps.normalized <= 100.0 + 1e-9
    assert 0.0 <= lpo_weight(ps.total) <= 1.0


# --- real data -----------------------------------------------------------------------------------------


def test_gold_claim_sets_score_full_marks_on_count_length_and_overlap_against_themselves(uspto_path):
    docs = [json.loads(line) for line in uspto_path.read_text(encoding="utf-8").splitlines()]
    for doc in docs:
        ps = patent_score(doc["claims_text"], doc["claims_text"])
        assert (ps.count, ps.length, ps.overlap) == (1.5, 0.5, 0.5), doc["id"]
    miscounted = [d["id"] for d in docs if count_claims(d["claims_text"]) != len(d["claims"])]
    # One document prints two claims as "10." (see the data README); every other count is exact.
    assert miscounted == ["US20040000033A1"]
