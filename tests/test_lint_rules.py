from conftest import REPO

from spg.lint.rules import RULES


def test_every_rule_is_documented_with_its_severity_in_docs_lint_md():
    page = (REPO / "docs" / "lint.md").read_text(encoding="utf-8")
    for rule in RULES.values():
        assert f"| `{rule.id}` | {rule.severity} |" in page


def test_rule_ids_are_stable_kebab_case_names():
    assert all(rule_id == rule_id.lower() and " " not in rule_id for rule_id in RULES)
    assert {"multiple-dependency-cumulative", "multiple-dependent-basis", "means-plus-function",
            "description-support", "antecedent"} <= RULES.keys()
