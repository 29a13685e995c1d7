from spg.lint.means import check_means_plus_function
from spg.parse import parse_claims


def test_means_for_and_step_for_terms_are_info_with_their_span():
    forest = parse_claims("1. A chair comprising a seat and means for rocking the seat, wherein the seat is red. "
                          "2. A method comprising a step for cleaning the seat; and drying.")
    findings = check_means_plus_function(forest)
    assert [(f.rule, f.severity, f.claim, f.term) for f in findings] == [
        ("means-plus-function", "info", 1, "means for rocking the seat"),
        ("step-plus-function", "info", 2, "step for cleaning the seat"),
    ]
    assert all(forest.by_num[f.claim].text[f.start : f.end] == f.term for f in findings)


def test_a_term_is_reported_once_per_claim_and_means_without_for_is_not():
    forest = parse_claims("1. A chair with means for rocking, fastening means, and means for rocking.")
    assert [f.term for f in check_means_plus_function(forest)] == ["means for rocking"]


def test_a_term_is_reported_where_the_claim_set_first_recites_it_not_where_a_claim_refers_back_to_it():
    forest = parse_claims("1. A heater comprising means for heating the water. 2. The heater of claim 1, wherein said "
                          "means for heating further comprises a coil. 3. The heater of claim 1, wherein the means for "
                          "heating is a coil, further comprising means for stirring the water. 4. A boiler comprising "
                          "means for heating the water.")
    assert [(f.claim, f.term) for f in check_means_plus_function(forest)] == [
        (1, "means for heating the water"), (3, "means for stirring the water")]


def test_a_definite_term_with_another_function_is_a_term_of_its_own():
    text = ("1. A method comprising: a. the step for providing a first device; and b. the step for providing a second "
            "device.")
    assert [f.term for f in check_means_plus_function(parse_claims(text))] == [
        "step for providing a first device", "step for providing a second device"]


def test_a_long_function_is_reported_cut_at_a_new_clause_or_twelve_words():
    text = ("1. A system having: means for correlating said program descriptions of program material with said "
            "program list information and for storing correlated descriptions; and means for printing the "
            "descriptions one by one on a roll of paper in a printer of the system.")
    terms = [f.term for f in check_means_plus_function(parse_claims(text))]
    assert terms == ["means for correlating said program descriptions of program material with said program list "
                     "information",
                     "means for printing the descriptions one by one on a roll of paper in"]
