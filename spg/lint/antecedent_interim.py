"""TEMPORARY: ``check_antecedents`` with the shape lint-ante's ``spg.lint.antecedent`` will have
(/work/notes/antecedent-interface.md), built on today's ``spg.metrics.antecedent.unsupported_references``.

At merge: delete this file and import ``check_antecedents`` from ``spg.lint.antecedent`` in ``spg/lint/check.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from spg.forest import Forest


@dataclass(frozen=True)
class AntecedentFinding:
    claim: int
    start: int
    end: int
    term: str
    rule: str
    message: str


def check_antecedents(forest: Forest) -> list[AntecedentFinding]:
    # Imported here: metrics sits above lint in the layering, and this bridge goes away at merge.
    from spg.metrics.antecedent import unsupported_references

    return [
        AntecedentFinding(
            a.claim, a.start, a.end, a.term, "antecedent",
            f"'{a.term}' (chars {a.start}-{a.end}) has no antecedent basis",
        )
        for a in unsupported_references(forest)
    ]
