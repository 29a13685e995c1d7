from spg.lint import find_all, lint
from spg.lint.rules import RULES
from spg.lint.suppress import Suppressions
from spg.parse import parse_claims

TEXT = ("1. A chair comprising means for rocking.\n2. The chair of claim 1, wherein the lever is red.\n"
        "3. The chair of claim 9.\n4. The chair of claims 1 and 2, made of oak.\n")


def test_findings_come_in_claim_order_with_structure_first_at_a_place():
    found = find_all(parse_claims(TEXT))
    assert [(f.claim, f.rule) for f in found] == [
        (1, "means-plus-function"), (2, "antecedent"), (3, "missing-parent"), (4, "multiple-dependency-cumulative"),
    ]


def test_every_rule_a_check_reports_is_registered_with_its_severity():
    found = find_all(parse_claims(TEXT + "5. The chair of claim 5.\n7. A stool.\n7. A bench."), "A chair.")
    assert found and all(RULES[f.rule].severity == f.severity for f in found)


def test_the_description_check_runs_only_with_a_description():
    forest = parse_claims("1. A chair comprising a headrest.")
    assert lint(forest).findings == [] and not lint(forest).description_checked
    assert [f.rule for f in lint(forest, "A chair.").findings] == ["description-support"]


def test_an_error_fails_the_run_unless_it_is_suppressed():
    forest = parse_claims(TEXT)
    assert lint(forest).failed
    ignore = Suppressions(ignore=frozenset({"missing-parent", "multiple-dependency-cumulative"}))
    result = lint(forest, suppressions=ignore)
    assert not result.failed and result.suppressed == 2
    assert result.summary() == {"error": 0, "warning": 1, "info": 1, "suppressed": 2}
