import pytest

from spg.lint.dependency import check_multiple_dependency
from spg.parse import parse_claims


def rules(text: str) -> list[tuple[str, int]]:
    return [(f.rule, f.claim) for f in check_multiple_dependency(parse_claims(text))]


@pytest.mark.parametrize(
    "citation",
    ["claim 1 or 2", "claim 1 or claim 2", "claims 1, 2 or 3", "any one of claims 1 to 3", "any of claims 1-3",
     "either claim 1 or claim 2", "any one of claims 1 and 2", "any preceding claim", "any one of the preceding claims",
     "one or more of the previous claims"],
)
def test_citations_in_the_alternative_are_proper(citation):
    assert rules(f"1. A chair. 2. A stool. 3. A bench. 4. The seat of {citation}, wherein the seat is red.") == []


@pytest.mark.parametrize(
    "citation", ["claims 1 and 2", "claims 1, 2 and 3", "claim 1 and claim 2", "claims 1 and/or 2", "claims 1-3",
                 "claims 1 to 3", "all the preceding claims"],
)
def test_cumulative_citations_are_errors_at_the_citation(citation):
    text = f"1. A chair. 2. A stool. 3. A bench. 4. The seat of {citation}, wherein the seat is red."
    [finding] = check_multiple_dependency(parse_claims(text))
    claim_text = parse_claims(text).by_num[4].text
    assert (finding.rule, finding.claim, finding.severity) == ("multiple-dependency-cumulative", 4, "error")
    assert claim_text[finding.start : finding.end] in citation


def test_cumulative_wording_is_an_error_even_when_one_cited_claim_includes_the_other():
    # MPEP 608.01(n)'s own example, "claims 3 and 4", is improper whatever claim 4 depends on
    assert rules("1. A chair. 2. The chair of claim 1. 3. The chair of claims 1 and 2.") == [
        ("multiple-dependency-cumulative", 3)
    ]


def test_separate_citations_of_unrelated_claims_are_cumulative():
    assert rules("1. A chair. 2. A stool. 3. The seat of claim 1, made with the tool of claim 2.") == [
        ("multiple-dependency-cumulative", 3)
    ]


def test_two_sets_of_alternatives_are_improper():
    findings = check_multiple_dependency(
        parse_claims("1. A. 2. B. 3. C. 4. D. 5. The gadget of claim 1 or 2, made by the process of claim 3 or 4.")
    )
    assert [(f.rule, f.claim) for f in findings] == [("multiple-dependency-cumulative", 5)]
    assert "more than one set of alternatives" in findings[0].message


def test_a_second_citation_of_an_ancestor_is_a_single_dependency():
    # granted US7473658B2 claim 14: "The composite material of claim 13 wherein the composition of claim 1 ..."
    assert rules("1. A composition. 2. The composition of claim 1. 3. The material of claim 2 wherein the "
                 "composition of claim 1 is dry.") == []


def test_a_multiple_dependent_claim_based_directly_on_another_is_an_error():
    assert rules("1. A. 2. B. 3. The gadget of claim 1 or 2. 4. The gadget of claim 3 or 1.") == [
        ("multiple-dependent-basis", 4)
    ]


def test_a_multiple_dependent_claim_based_indirectly_on_another_is_an_error():
    # MPEP 608.01(n) I: "directly or indirectly"; claim 4 is a single dependent claim between them
    text = "1. A. 2. B. 3. The gadget of claim 1 or 2. 4. The gadget of claim 3. 5. The gadget of claim 4 or 2."
    assert rules(text) == [("multiple-dependent-basis", 5)]


def test_a_single_dependent_claim_may_depend_on_a_multiple_dependent_claim():
    assert rules("1. A. 2. B. 3. The gadget of claim 1 or 2. 4. The gadget of claim 3.") == []


def test_gold_parents_without_citing_words_are_checked_for_their_basis_only():
    forest = parse_claims([
        {"num": 1, "text": "A."}, {"num": 2, "text": "B."}, {"num": 3, "text": "C.", "parents": [1, 2]},
        {"num": 4, "text": "D."}, {"num": 5, "text": "E.", "parents": [3, 4]},
    ])
    findings = check_multiple_dependency(forest)
    assert [(f.rule, f.claim, f.start) for f in findings] == [("multiple-dependent-basis", 5, None)]


def test_no_finding_on_the_granted_us_claims_but_one_real_drafting_error(uspto_path):
    from spg.data import load_records

    found = [
        (r.id, f.claim) for r in load_records(uspto_path) if r.fields.get("kind") == "grant"
        for f in check_multiple_dependency(r.claims)
    ]
    # US8088480B2 claim 12: "The adhesive tape of claim 5, the adhesive tape claim of claim 1" (5 and 1 independent)
    assert found == [("US8088480B2", 12)]
