"""One finding of ``spg lint``: what every check returns, whatever it looks at (structure, wording, statute)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from spg.forest import Diagnostic

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    """A problem (or, for ``info``, a fact a drafter should know) in one claim or in the whole set.

    ``claim`` is None for set-level findings. ``start``/``end`` are character offsets into that claim's text
    (``Claim.text[start:end]``) when the finding has a place; ``term`` is the claim term the finding is about,
    which is what an accepted term in a suppression file is compared with.
    """

    rule: str
    severity: Severity
    claim: int | None
    message: str
    start: int | None = None
    end: int | None = None
    term: str | None = None

    def __str__(self) -> str:
        where = f"claim {self.claim}" if self.claim is not None else "claim set"
        return f"{self.severity}: {where}: {self.message} [{self.rule}]"

    def to_dict(self) -> dict:
        return {
            "rule": self.rule, "severity": self.severity, "claim": self.claim, "start": self.start,
            "end": self.end, "term": self.term, "message": self.message,
        }


def from_diagnostic(d: Diagnostic) -> Finding:
    """A structural :class:`~spg.forest.Diagnostic` as a finding (its code is the rule id)."""
    return Finding(d.code, d.severity, d.claim, d.message)
