"""The term map (spg.lint.terms) and the claim counts with their USPTO fee triggers (spg.lint.fees): their data, the
terminal line, ``spg lint --json``, the HTML report with links to the claims."""

from __future__ import annotations

import json

from spg.cli import main
from spg.lint import lint, report_json, report_lines
from spg.lint.antecedent import check_antecedents
from spg.lint.fees import claim_counts
from spg.lint.html import render_html
from spg.lint.terms import term_map
from spg.parse import parse_claims

WIDGET = ("1. A widget comprising a lever and a bar.\n"
          "2. The widget of claim 1, wherein the lever is red.\n"
          "3. The widget of claim 1 or 2, wherein the bar is blue.\n"
          "4. The widget of claim 3, wherein said lever is long and the spring is tight.\n")


def test_each_term_has_its_introduction_and_the_claims_referring_to_it():
    terms = {t.name: t for t in term_map(parse_claims(WIDGET))}
    lever, bar = terms["lever"], terms["bar"]
    assert (lever.introduced.claim, lever.introduced.text, lever.claims) == (1, "a lever", [2, 4])
    assert [m.text for m in lever.references] == ["the lever", "said lever"]
    assert (bar.introduced.claim, bar.claims) == (1, [3])
    forest = parse_claims(WIDGET)
    for m in lever.references:  # spans index the claim's text, as findings' do
        assert forest.by_num[m.claim].text[m.start : m.end] == m.text


def test_a_count_and_the_phrase_it_counts_are_one_term():
    forest = parse_claims("1. A stool comprising a pair of curved legs and a set of screws, each fixing a step.\n"
                          "2. The stool of claim 1, wherein said legs are long and the screws are short.\n")
    terms = {t.name: t for t in term_map(forest)}
    assert "pair" not in terms and "set" not in terms
    assert terms["pair of curved legs"].introduced.text == "a pair of curved legs"
    assert terms["pair of curved legs"].claims == [2] and terms["set of screws"].claims == [2]
    assert "step" in terms  # "each fixing a step": a count is joined only to the phrase right after its "of"


def test_a_reference_without_basis_is_no_reference_of_a_term():
    # "the spring" has no antecedent: a finding, and a term first written with "the", referred to by nobody else
    forest = parse_claims(WIDGET)
    assert [f.term for f in check_antecedents(forest)] == ["the spring"]
    spring = next(t for t in term_map(forest) if t.name == "spring")
    assert spring.introduced.text == "the spring" and spring.claims == []


def test_the_term_map_and_the_findings_come_from_one_reading():
    forest = parse_claims(WIDGET)
    result = lint(forest, terms=True)
    assert [t.to_dict() for t in result.terms] == [t.to_dict() for t in term_map(forest)]
    assert [f.message for f in result.findings] == [f.message for f in lint(forest).findings]
    assert lint(forest).terms is None


def test_claim_counts_weigh_multiple_dependent_claims_as_the_fee_rules_do():
    counts = claim_counts(parse_claims(WIDGET))
    # claim 3 cites 2 claims and counts as 2; claim 4 depends from it and counts as 2 too (37 CFR 1.75(c))
    assert (counts.independent, counts.total, counts.counted, counts.multiple) == (1, 4, 6, {3: [1, 2]})
    assert counts.triggers() == ["multiple dependent claim 3 (multiple dependent claim fee, 37 CFR 1.16(j))"]


def test_more_than_three_independent_and_twenty_claims_trigger_fees():
    text = "".join(f"{n}. A widget {n}.\n" for n in range(1, 5))
    text += "".join(f"{n}. The widget {1} of claim 1, being red {n}.\n" for n in range(5, 23))
    counts = claim_counts(parse_claims(text))
    assert (counts.independent, counts.total, counts.counted) == (4, 22, 22)
    assert counts.triggers() == [
        "4 independent claims: 1 over 3 (excess independent claims fee, 37 CFR 1.16(h))",
        "22 claims as counted for fees: 2 over 20 (excess claims fee, 37 CFR 1.16(i))",
    ]
    three = claim_counts(parse_claims("1. A cup.\n2. A lid.\n3. A kit.\n4. The kit of claim 3, boxed.\n"))
    assert three.triggers() == []
    assert three.line().endswith("within the basic fee (3 independent, 20 in all)")


def test_the_terminal_json_and_html_show_them(tmp_path, capsys):
    result = lint(parse_claims(WIDGET), terms=True)
    lines = report_lines(result)
    assert lines[-2].startswith("claim count: 1 independent, 4 in all, 6 as counted for fees, 1 multiple dependent")
    report = report_json(result)
    assert report["claim_count"]["counted"] == 6 and report["claim_count"]["multiple_dependent"] == {"3": [1, 2]}
    assert next(t for t in report["terms"] if t["term"] == "lever")["claims"] == [2, 4]
    page = render_html(result, "w.txt")
    assert "<h2>Claim count</h2>" in page and "37 CFR 1.16(j)" in page
    assert '<td class="term"><a href="#claim-1">lever</a></td>' in page
    assert '<a href="#claim-2">2</a>, <a href="#claim-4">4</a>' in page and 'id="claim-4"' in page
    path = tmp_path / "w.txt"
    path.write_text(WIDGET, encoding="utf-8")
    assert main(["lint", "--no-config", "--json", str(path)]) == 0
    assert [t["term"] for t in json.loads(capsys.readouterr().out)["terms"]][:3] == ["widget", "lever", "bar"]
    assert main(["lint", "--no-config", str(path)]) == 0
    assert "37 CFR 1.16(j)" in capsys.readouterr().out
