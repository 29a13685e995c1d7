"""``spg lint --html FILE``: one self-contained page (inline CSS, no script, nothing fetched) with a summary table,
the claim tree, and every claim's full text with its findings highlighted where they are and explained below it.

``spg serve`` shows the same body inside its page (:func:`render_body`, styled by :data:`CSS`); each finding's list
item carries what a suppression of it needs (``data-rule``, ``data-claim``, ``data-term``), which the static report
never reads."""

from __future__ import annotations

from collections import Counter, defaultdict
from html import escape

from spg.forest import Claim
from spg.lint.check import LintResult
from spg.lint.fees import ClaimCounts
from spg.lint.finding import SEVERITIES, Finding
from spg.lint.rules import RULES
from spg.lint.terms import Term
from spg.lint.text import summary_line, tree_order

CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d232a;margin:0;background:#f4f5f7}
main{max-width:1100px;margin:0 auto;padding:24px 32px 48px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 10px;border-bottom:1px solid #d5d9de;padding-bottom:4px}
.sub{color:#59636e;margin:0 0 16px}
table{border-collapse:collapse;background:#fff;width:100%;font-size:14px}
th,td{border:1px solid #d5d9de;padding:5px 9px;text-align:left;vertical-align:top}
th{background:#eaedf0}td.rule{white-space:nowrap}td.n{text-align:right;font-variant-numeric:tabular-nums;width:5em}
.badge{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;font-weight:600;color:#fff}
.error{background:#c62828}.warning{background:#b26a00}.info{background:#1565c0}
.claim{background:#fff;border:1px solid #d5d9de;border-left:4px solid #8a949e;border-radius:4px;
 margin:8px 0;padding:8px 12px}
.claim.has-error{border-left-color:#c62828}.claim.has-warning{border-left-color:#b26a00}
.claim.has-info{border-left-color:#1565c0}
.head{font-weight:600}.head .label{color:#59636e;font-weight:400;margin-left:6px}
.text{margin:4px 0 6px;white-space:pre-wrap}
mark{border-radius:2px;padding:0 1px;color:inherit}
mark.error{background:#ffcdd2;border-bottom:2px solid #c62828}
mark.warning{background:#ffe0a3;border-bottom:2px solid #b26a00}
mark.info{background:#d3e5fb;border-bottom:2px solid #1565c0}
mark sup{font-size:10px;font-weight:700;margin-left:1px}
ol.findings{margin:0;padding-left:22px;font-size:14px;list-style:none}ol.findings li{margin:2px 0}
.rule{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;color:#3d4650}
.why{color:#59636e}
.tree{background:#fff;border:1px solid #d5d9de;border-radius:4px;padding:8px 12px;
 font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;line-height:1.6}
.tree a{color:#0b57a4;text-decoration:none;font-weight:600}.tree .count{margin-left:6px}
.tree .snippet{color:#3d4650}
.outside{color:#c62828;font-weight:600}
table.terms a,table.counts a{color:#0b57a4;text-decoration:none;font-weight:600}
table.terms td.term{font-weight:600}table.terms .quote{color:#59636e;font-size:13px}
"""


def _badge(severity: str) -> str:
    return f'<span class="badge {severity}">{severity}</span>'


def _worst(findings: list[Finding]) -> str | None:
    return next((s for s in SEVERITIES if any(f.severity == s for f in findings)), None)


def _marked_text(claim: Claim, numbered: list[tuple[int, Finding]]) -> str:
    """The claim text with each located finding in a <mark>, numbered like the list under it. Overlapping spans
    are cut at every boundary, each piece marked with the worst severity covering it."""
    text = claim.text
    spans = [(f.start, f.end, n, f) for n, f in numbered
             if f.start is not None and f.end is not None and 0 <= f.start < f.end <= len(text)]
    cuts = sorted({0, len(text), *(s for s, _, _, _ in spans), *(e for _, e, _, _ in spans)})
    out = []
    for a, b in zip(cuts, cuts[1:]):
        covering = [(n, f) for s, e, n, f in spans if s <= a and b <= e]
        piece = escape(text[a:b])
        if not covering:
            out.append(piece)
            continue
        ending = "".join(f"<sup>{n}</sup>" for n, f in covering if f.end == b)
        title = escape("; ".join(f"[{f.rule}] {f.message}" for _, f in covering), quote=True)
        out.append(f'<mark class="{_worst([f for _, f in covering])}" title="{title}">{piece}{ending}</mark>')
    return "".join(out)


def _finding_item(n: int | None, f: Finding) -> str:
    rule = RULES.get(f.rule)
    why = f' <span class="why">— {escape(rule.explanation)} ({escape(rule.source)})</span>' if rule else ""
    number = f"<b>{n}</b> " if n is not None else ""
    data = f' data-rule="{escape(f.rule, quote=True)}"' + (f' data-claim="{f.claim}"' if f.claim is not None else "")
    data += f' data-term="{escape(f.term, quote=True)}"' if f.term else ""
    return f'<li{data}>{number}{_badge(f.severity)} <span class="rule">{escape(f.rule)}</span> {escape(f.message)}{why}</li>'


def _claim_block(claim: Claim, label: str, findings: list[Finding], anchor: str) -> str:
    numbered = list(enumerate(findings, 1))
    worst = _worst(findings)
    items = "".join(_finding_item(n, f) for n, f in numbered)
    return (
        f'<div class="claim{f" has-{worst}" if worst else ""}" id="{anchor}">'
        f'<div class="head">Claim {claim.num}<span class="label">{escape(label)}</span></div>'
        f'<div class="text">{_marked_text(claim, numbered)}</div>'
        + (f'<ol class="findings">{items}</ol>' if items else "")
        + "</div>"
    )


def _label(claim: Claim) -> str:
    return "independent" if claim.independent else "depends on " + ", ".join(map(str, claim.parents))


def _tree_entry(claim: Claim, indent: int, findings: list[Finding]) -> str:
    text = " ".join(claim.text.split())
    snippet = text if len(text) <= 80 else text[:79].rstrip() + "…"
    count = f'<span class="count">{_badge(_worst(findings))} {len(findings)}</span>' if findings else ""
    return (f'<div style="padding-left:{indent * 22}px"><a href="#claim-{claim.num}">{claim.num}</a> '
            f'<span class="snippet">{escape(snippet)}</span>{count}</div>')


def _summary_tables(result: LintResult) -> str:
    counts = Counter(f.rule for f in result.findings)
    rows = "".join(
        f"<tr><td>{_badge(s)}</td><td class=n>{result.count(s)}</td></tr>" for s in SEVERITIES
    ) + f"<tr><td>suppressed</td><td class=n>{result.suppressed}</td></tr>"
    by_rule = "".join(
        f'<tr><td class="rule">{escape(rule)}</td><td>{_badge(RULES[rule].severity if rule in RULES else "info")}'
        f"</td><td class=n>{n}</td><td>{escape(RULES[rule].explanation) if rule in RULES else ''}</td>"
        f"<td>{escape(RULES[rule].source) if rule in RULES else ''}</td></tr>"
        for rule, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    rule_table = (
        "<table><tr><th>rule</th><th>severity</th><th>found</th><th>what it means</th><th>source</th></tr>"
        f"{by_rule}</table>" if by_rule else "<p>No findings.</p>"
    )
    return f'<table style="width:auto;margin-bottom:12px">{rows}</table>{rule_table}'


def render_body(result: LintResult, name: str) -> str:
    """The report's content (what ``<main>`` holds): heading, summary, claim tree and claims."""
    forest = result.forest
    per_claim: dict[int, list[Finding]] = defaultdict(list)
    for f in result.findings:
        if f.claim is not None:
            per_claim[f.claim].append(f)
    placed, outside = tree_order(forest)
    tree = [_tree_entry(claim, depth, per_claim.get(claim.num, [])) for claim, depth in placed]
    if outside:
        tree.append('<div class="outside">outside any tree:</div>')
        tree += [_tree_entry(claim, 1, per_claim.get(claim.num, [])) for claim in outside]
    outside_ids = {id(c) for c in outside}
    blocks = []
    for i, claim in enumerate(forest.claims):  # in document order
        first = forest.by_num[claim.num] is claim  # findings and links name the first claim with a number
        own = per_claim.get(claim.num, []) if first else []
        label = _label(claim) + (" — outside any tree" if id(claim) in outside_ids else "")
        blocks.append(_claim_block(claim, label, own, f"claim-{claim.num}" if first else f"claim-{claim.num}-at-{i}"))
    set_level = [f for f in result.findings if f.claim is None]
    set_items = "".join(_finding_item(None, f) for f in set_level)
    support = "checked against the description" if result.description_checked else "no description given"
    return (
        f"<h1>spg lint: {escape(name)}</h1><p class=sub>{escape(summary_line(result))}; description support: "
        f"{support}</p><h2>Summary</h2>{_summary_tables(result)}"
        + f"<h2>Claim count</h2>{_counts_table(result.claim_count)}"
        + (f'<h2>Claim set</h2><ol class="findings">{set_items}</ol>' if set_items else "")
        + f'<h2>Claim tree</h2><div class="tree">{"".join(tree)}</div>'
        + (f"<h2>Terms</h2>{_term_table(result.terms)}" if result.terms is not None else "")
        + f"<h2>Claims</h2>{''.join(blocks)}"
    )


def _claim_link(num: int) -> str:
    return f'<a href="#claim-{num}">{num}</a>'


def _counts_table(counts: ClaimCounts) -> str:
    """The claim counts the USPTO charges by, and each fee trigger hit (:mod:`spg.lint.fees`)."""
    multiple = ", ".join(f"{_claim_link(n)} (cites {', '.join(map(str, p))})" for n, p in counts.multiple.items())
    rows = (f"<tr><td>independent claims</td><td class=n>{counts.independent}</td></tr>"
            f"<tr><td>claims in all</td><td class=n>{counts.total}</td></tr>"
            f"<tr><td>claims as counted for fees</td><td class=n>{counts.counted}</td></tr>"
            f"<tr><td>multiple dependent claims{': ' + multiple if multiple else ''}</td>"
            f"<td class=n>{len(counts.multiple)}</td></tr>")
    triggers = counts.triggers()
    listed = ("".join(f"<li>{_badge('warning')} {escape(t)}</li>" for t in triggers) if triggers else
              "<li>within the basic filing fee (3 independent claims, 20 in all, no multiple dependent claim)</li>")
    return f'<table class="counts" style="width:auto">{rows}</table><ul class="fees">{listed}</ul>'


def _term_table(terms: list[Term]) -> str:
    """The term map: each term, the claim introducing it and the claims referring to it, each a link to the
    claim."""
    if not terms:
        return "<p>No terms.</p>"
    rows = "".join(
        f'<tr><td class="term"><a href="#claim-{t.introduced.claim}">{escape(t.name)}</a></td>'
        f'<td>{_claim_link(t.introduced.claim)} <span class="quote">{escape(t.introduced.text)}</span></td>'
        f"<td>{', '.join(map(_claim_link, t.claims)) or '—'}</td></tr>"
        for t in terms
    )
    return ('<table class="terms"><tr><th>term</th><th>introduced in claim</th><th>referred to in claims</th></tr>'
            f"{rows}</table>")


# The report's Content-Security-Policy: nothing is fetched, nothing runs; only its own inline style applies.
CSP = "default-src 'none'; style-src 'unsafe-inline'"


def render_html(result: LintResult, name: str) -> str:
    """The whole report as one HTML document."""
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<title>spg lint: {escape(name)}</title><style>{CSS}</style></head><body><main>"
        f"{render_body(result, name)}</main></body></html>\n"
    )
