import pytest

from spg.errors import InputError
from spg.lint import lint
from spg.lint.suppress import Suppressions, find_config, read_suppressions, term_key
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
