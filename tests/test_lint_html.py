import re
from html import escape

from spg.lint import lint
from spg.lint.html import render_html
from spg.parse import parse_claims


def claim_set(n: int) -> str:
    """``n`` claims with findings of several rules spread over them."""
    claims = ["1. A chair comprising a seat, a back and means for rocking the seat."]
    for k in range(2, n + 1):
        if k % 10 == 0:
            claims.append(f"{k}. The chair of claims 1 and {k - 1}, wherein the lever is red.")
        elif k % 17 == 0:
            claims.append(f"{k}. The chair of claim {n + 5}, wherein the seat is red.")
        else:
            claims.append(f"{k}. The chair of claim {k - 1}, wherein the seat <b>&amp; the back are red.")
    return "\n".join(claims)


def test_a_130_claim_report_has_every_claim_and_every_finding():
    result = lint(parse_claims(claim_set(130)), description="A chair has a seat, a back and a rocker.")
    page = render_html(result, "chairs.txt")
    assert len(result.forest) == 130 and len({f.rule for f in result.findings}) >= 4
    for claim in result.forest:
        assert f'id="claim-{claim.num}"' in page
        assert f'href="#claim-{claim.num}"' in page
    for finding in result.findings:
        assert escape(finding.message) in page
        if finding.start is not None:  # highlighted where it is
            claim_text = result.forest.by_num[finding.claim].text
            assert escape(claim_text[finding.start : finding.end]) in page


def test_the_report_is_self_contained_and_escapes_claim_text():
    page = render_html(lint(parse_claims(claim_set(12))), "c.txt")
    assert "<script" not in page and not re.search(r"(?:src|href)=\"(?:https?:)?//", page)
    assert "&lt;b&gt;&amp;amp;" in page and "<b>&amp;" not in page


def test_overlapping_findings_are_both_marked():
    result = lint(parse_claims("1. A chair comprising means for rocking the lever."))
    page = render_html(result, "c.txt")
    assert {f.rule for f in result.findings} == {"means-plus-function", "antecedent"}
    marks = re.findall(r'<mark class="(\w+)" title="([^"]*)">', page)
    assert len(marks) == 2  # "means for rocking ", then "the lever" inside the means term: both findings
    assert marks[1][0] == "warning" and "[means-plus-function]" in marks[1][1] and "[antecedent]" in marks[1][1]


def test_the_real_130_claim_patent_renders_every_claim(uspto_path):
    from spg.data import load_records

    record = next(r for r in load_records(uspto_path) if r.id == "US6314577B1")
    result = lint(record.claims, record.description)
    page = render_html(result, record.id)
    assert len(record.claims) == 130
    assert all(f'id="claim-{c.num}"' in page for c in record.claims)
    assert all(escape(f.message) in page for f in result.findings)


def test_duplicate_claim_numbers_get_distinct_anchors():
    page = render_html(lint(parse_claims("1. A chair.\n2. A stool.\n2. A bench.\n")), "c.txt")
    ids = re.findall(r'<div class="claim[^"]*" id="([^"]+)"', page)
    assert len(ids) == len(set(ids)) == 3 and ids[:2] == ["claim-1", "claim-2"]


def test_each_finding_number_is_printed_once():
    # Each list item carries its own number, the one its <sup> mark in the claim text shows; the list's own
    # numbering would print it a second time ("1. 1 warning").
    page = render_html(lint(parse_claims("1. A chair comprising means for rocking the lever.")), "c.txt")
    css = re.search(r"ol\.findings\{([^}]*)\}", page).group(1)
    assert "list-style:none" in css
    assert re.findall(r"<li[^>]*><b>(\d+)</b>", page) == re.findall(r"<sup>(\d+)</sup>", page) == ["1", "2"]
