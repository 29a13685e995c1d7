import pytest

from spg.errors import InputError
from spg.lint import lint
from spg.lint.suppress import Suppressions, claim_key, find_config, read_suppressions, term_key
from spg.parse import parse_claims

CLAIMS = parse_claims("1. A chair comprising means for rocking. 2. The chair of claim 1, wherein the levers are red. "
                      "3. The chair of claims 1 and 2, made of oak.")


def config(tmp_path, text: str):
    path = tmp_path / ".spg-lint.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_ignored_rules_accepted_terms_and_per_claim_rules_are_suppressed_and_counted(tmp_path):
    everything = lint(CLAIMS)
    suppressions = read_suppressions(config(tmp_path, "ignore: [means-plus-function]\naccept-terms: [said lever]\n"
                                                      "per-claim:\n  3: [multiple-dependency-cumulative]\n"))
    result = lint(CLAIMS, suppressions=suppressions)
    assert {f.rule for f in everything.findings} == {"means-plus-function", "antecedent",
                                                     "multiple-dependency-cumulative"}
    assert result.findings == [] and result.suppressed == len(everything.findings) == 3


def test_per_claim_rules_only_apply_to_that_claim(tmp_path):
    suppressions = read_suppressions(config(tmp_path, "per-claim: {2: [multiple-dependency-cumulative]}"))
    assert [f.rule for f in lint(CLAIMS, suppressions=suppressions).findings if f.claim == 3] == [
        "multiple-dependency-cumulative"
    ]


SAVED = parse_claims("1. A chair comprising a seat.\n2. The chair of claim 1, wherein the lever is red.\n"
                     "3. The chair of claim 2, wherein the seat is soft.\n")
# a claim inserted before claim 2, the later ones renumbered and their citations with them
RENUMBERED = parse_claims("1. A chair comprising a seat.\n2. The chair of claim 1, wherein the handle is blue.\n"
                          "3. The Chair of claim 1,  wherein the lever is red.\n"
                          "4. The chair of claim 3, wherein the seat is soft.\n")


def test_a_claims_key_is_its_words_whatever_its_number_and_the_numbers_it_cites():
    saved, renumbered = ([claim_key(c) for c in f.claims] for f in (SAVED, RENUMBERED))
    assert saved[1] == renumbered[2] and saved[2] == renumbered[3]  # moved, citing a renumbered claim
    assert len(set(renumbered)) == 4 and saved[0] == renumbered[0]
    changed = parse_claims("1. A chair comprising a seat.\n2. The chair of claim 1, wherein the lever is blue.")
    assert claim_key(changed.claims[1]) != saved[1]  # its own words changed: the suppression lapses


def test_a_suppression_keyed_by_the_claims_words_stays_on_it_when_claims_are_renumbered(tmp_path):
    key = claim_key(SAVED.claims[1])
    path = config(tmp_path, f"per-claim-text:\n  - {{claim: 2, key: {key}, rules: [antecedent]}}\n")
    suppressions = read_suppressions(path)
    assert [f.claim for f in lint(SAVED, suppressions=suppressions).findings if f.rule == "antecedent"] == []
    result = lint(RENUMBERED, suppressions=suppressions)
    # "the lever" (claim 3 now) stays suppressed; the new claim 2's "the handle" is reported
    assert [(f.claim, f.term) for f in result.findings if f.rule == "antecedent"] == [(2, "the handle")]
    assert result.suppressed == 1
    # a suppression keyed by number, as files before issue 42 hold, still works and follows the number
    by_number = read_suppressions(config(tmp_path, "per-claim: {2: [antecedent]}"))
    assert [f.term for f in lint(RENUMBERED, suppressions=by_number).findings if f.rule == "antecedent"] == [
        "the lever"]


def test_a_term_matches_without_determiner_case_or_inflection():
    assert term_key("the Levers") == term_key("said lever") == term_key("lever")


def test_with_ignored_adds_rules_to_those_of_the_file():
    kept, suppressed = Suppressions(ignore=frozenset({"antecedent"})).with_ignored(["means-plus-function"]).split(
        lint(CLAIMS).findings
    )
    assert [f.rule for f in kept] == ["multiple-dependency-cumulative"] and suppressed == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ignore: [no-such-rule]", "unknown rule 'no-such-rule'"),
        ("ignroe: [antecedent]", "unknown key 'ignroe'"),
        ("ignore: antecedent", "'ignore' must be a list of non-empty strings"),
        ("per-claim: {x: [antecedent]}", "expected a claim number"),
        ("ignore: [antecedent", "line 1, column 20: not valid YAML"),
        ("- antecedent", "expected a mapping"),
        ("per-claim-text: {2: [antecedent]}", "'per-claim-text' must be a list"),
        ("per-claim-text: [{claim: 2, rules: [antecedent]}]", "entry 1: expected a mapping with the keys key and"),
        ("per-claim-text: [{key: abcdefgh2345, rules: [antecedent], note: x}]", "entry 1: expected a mapping"),
        ("per-claim-text: [{key: the lever, rules: [antecedent]}]", "entry 1: 'key' must be a claim's key"),
        ("per-claim-text: [{key: abcdefgh2345, rules: [no-such-rule]}]", "entry 1: unknown rule 'no-such-rule'"),
        ("per-claim-text: [{key: abcdefgh2345, rules: antecedent}]", "entry 1 must be a list of non-empty strings"),
        ("per-claim-text: [{key: abcdefgh2345, claim: two, rules: [antecedent]}]", "'claim' must be a claim number"),
    ],
)
def test_a_malformed_file_is_one_input_error_naming_it(tmp_path, text, message):
    path = config(tmp_path, text)
    with pytest.raises(InputError, match=message) as e:
        read_suppressions(path)
    assert str(path) in str(e.value) and "\n" not in str(e.value)


def test_the_nearest_config_above_the_claim_file_is_found(tmp_path):
    path = config(tmp_path, "ignore: [antecedent]")
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert find_config(tmp_path / "a" / "b") == path
    assert find_config(tmp_path / "a") == path and read_suppressions(path).ignore == {"antecedent"}
