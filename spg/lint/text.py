"""``spg lint`` output for people (the tree, the findings, a summary line) and for machines (JSON)."""

from __future__ import annotations

from spg.forest import Claim, Forest
from spg.lint.check import LintResult, lint
from spg.lint.suppress import claim_key

SNIPPET = 70
MAX_INDENT = 20


def _label(claim: Claim) -> str:
    if claim.independent:
        return "ind"
    cited = f" (cites {', '.join(map(str, claim.parents))})" if len(claim.parents) > 1 else ""
    return f"dep→{claim.parent}{cited}"


def _line(claim: Claim, indent: int) -> str:
    text = " ".join(claim.text.split())
    snippet = text if len(text) <= SNIPPET else text[: SNIPPET - 1].rstrip() + "…"
    # Indented at most MAX_INDENT levels, deeper ones say their depth: a 100,000-deep chain indented in full
    # would print 10 GB.
    deeper = f"(depth {indent + 1}) " if indent > MAX_INDENT else ""
    return f"{'  ' * min(indent, MAX_INDENT)}{deeper}{claim.num} [{_label(claim)}] {snippet}"


def tree_order(forest: Forest) -> tuple[list[tuple[Claim, int]], list[Claim]]:
    """(each claim in a tree with its depth - 1, in Eq. 1 order tree by tree; the claims outside any tree: broken
    chains, duplicate numbers)."""
    placed: list[tuple[Claim, int]] = []
    shown: set[int] = set()  # id() of placed claims: duplicate numbers are distinct claims
    for tree in forest.trees():
        for num in tree:
            claim = forest.by_num[num]
            if id(claim) not in shown:
                shown.add(id(claim))
                placed.append((claim, (forest.depth(num) or 1) - 1))
    return placed, [c for c in forest.claims if id(c) not in shown]


def tree_lines(forest: Forest) -> list[str]:
    """Each tree in Eq. 1 order, indented by depth; claims outside any tree (broken chains, duplicates) last."""
    placed, rest = tree_order(forest)
    lines = [_line(claim, indent) for claim, indent in placed]
    if rest:
        lines.append("outside any tree:")
        lines += [_line(c, 1) for c in rest]
    return lines


def summary_line(result: LintResult) -> str:
    forest = result.forest
    suppressed = f", {result.suppressed} suppressed" if result.suppressed else ""
    return (
        f"{len(forest)} claims ({forest.num_independent} independent, {forest.num_dependent} dependent, "
        f"max depth {forest.max_depth}); {result.count('error')} errors, {result.count('warning')} warnings, "
        f"{result.count('info')} info{suppressed}"
    )


def report_lines(result: LintResult) -> list[str]:
    """What ``spg lint`` prints: the trees, a blank line, every finding, the claim counts with their fee triggers
    (:mod:`spg.lint.fees`) and the summary line."""
    return [*tree_lines(result.forest), "", *map(str, result.findings), result.claim_count.line(),
            summary_line(result)]


def lint_lines(forest: Forest, description: str | None = None, restatement: str = "rules") -> list[str]:
    """:func:`report_lines` of a claim set linted with no suppressions, against ``description`` when given (``spg
    generate`` prints this after each document, with the document's description and its restatement mode: ``spg
    lint --no-config --description --restatement``)."""
    return report_lines(lint(forest, description, restatement=restatement))


def report_json(result: LintResult, paragraphs: dict[int, int] | None = None) -> dict:
    """The machine-readable result of ``spg lint --json``: each claim with its ``text``, the string its findings'
    ``start``/``end`` index into, and the ``key`` a suppression finds it by (spg.lint.suppress). ``paragraphs`` (a
    Word document's claim number → index of its first paragraph) adds ``paragraph`` to each claim and finding."""
    forest = result.forest
    report = {
        "claims": [
            {
                "num": c.num,
                "parents": list(c.parents),
                "parent": c.parent,
                "depth": forest.depth(c.num),
                "independent": c.independent,
                "text": c.text,
                "key": claim_key(c),
            }
            for c in forest.claims
        ],
        "findings": [f.to_dict() for f in result.findings],
        "summary": {**result.summary(), "description_checked": result.description_checked},
        "claim_count": result.claim_count.to_dict(),
    }
    if result.terms is not None:
        report["terms"] = [t.to_dict() for t in result.terms]
    if paragraphs is not None:
        for claim in report["claims"]:
            claim["paragraph"] = paragraphs.get(claim["num"])
        for finding in report["findings"]:
            finding["paragraph"] = paragraphs.get(finding["claim"]) if finding["claim"] is not None else None
    return report
