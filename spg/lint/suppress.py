"""Suppressions, the way linters do them: a YAML file of rules to ignore and terms to accept, and ``--ignore``.

``.spg-lint.yaml`` (found in the claim file's folder or the nearest folder above it; stdin: the working folder),
or the file ``--config`` names::

    ignore: [means-plus-function]          # rules never reported
    accept-terms: [the lever, footplate]   # terms the antecedent and description-support checks accept
    per-claim:                             # rules ignored in one claim only
      12: [multiple-dependency-cumulative]

A term is compared without its determiner, case or inflection: "the levers" accepts a finding about "said lever".
Every suppressed finding is counted in the summary line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from spg.config import read_yaml
from spg.errors import InputError
from spg.lint.finding import Finding
from spg.lint.rules import RULES
from spg.lint.support import fold

CONFIG_NAME = ".spg-lint.yaml"
_KEYS = ("ignore", "accept-terms", "per-claim")
_DETERMINER = re.compile(r"^(?:the|said|an?|one or more|at least one|a plurality of)\s+")


def term_key(term: str) -> str:
    """What two spellings of one term share: no determiner, lowercase, each word without its inflection."""
    return " ".join(fold(w) for w in _DETERMINER.sub("", " ".join(term.lower().split())).split())


def check_rule_ids(ids: Iterable[str], where: str) -> frozenset[str]:
    """``ids`` as a set, each a known rule id; an unknown one is an InputError naming ``where``."""
    ids = frozenset(ids)
    unknown = sorted(ids - RULES.keys())
    if unknown:
        raise InputError(f"{where}: unknown rule {unknown[0]!r}; expected one of {', '.join(RULES)}")
    return ids


@dataclass(frozen=True)
class Suppressions:
    ignore: frozenset[str] = frozenset()
    accept_terms: frozenset[str] = frozenset()  # term_key() of each accepted term
    per_claim: dict[int, frozenset[str]] = field(default_factory=dict)
    source: str | None = None  # the file they came from, if any

    def suppresses(self, finding: Finding) -> bool:
        if finding.rule in self.ignore or finding.rule in self.per_claim.get(finding.claim, ()):
            return True
        return finding.term is not None and term_key(finding.term) in self.accept_terms

    def split(self, findings: list[Finding]) -> tuple[list[Finding], int]:
        """(the findings still reported, how many were suppressed)."""
        kept = [f for f in findings if not self.suppresses(f)]
        return kept, len(findings) - len(kept)

    def with_ignored(self, rules: Iterable[str]) -> Suppressions:
        return Suppressions(self.ignore | frozenset(rules), self.accept_terms, self.per_claim, self.source)


def _strings(value: object, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError(f"{where} must be a list of non-empty strings, got {value!r:.60}")
    return [v.strip() for v in value]


def read_suppressions(path: Path) -> Suppressions:
    """The suppressions of one YAML file; a malformed file is an InputError naming it, the key and what was
    expected."""
    data = read_yaml(path)  # spg's one safe reader: no aliases, no duplicate keys
    return suppressions_of(data, str(path), source=str(path))


def suppressions_of(data: object, where: str, source: str | None = None) -> Suppressions:
    """The suppressions a file's content (or ``spg serve``'s request) holds, checked: a malformed one is an
    InputError naming ``where``, the key and what was expected."""
    if not data:
        return Suppressions(source=source)
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a mapping with the keys {', '.join(_KEYS)}, got {type(data).__name__}")
    unknown = [k for k in data if k not in _KEYS]
    if unknown:
        raise InputError(f"{where}: unknown key {str(unknown[0])!r}; expected {', '.join(_KEYS)}")
    ignore = check_rule_ids(_strings(data.get("ignore", []), f"{where}: 'ignore'"), f"{where}: 'ignore'")
    terms = frozenset(term_key(t) for t in _strings(data.get("accept-terms", []), f"{where}: 'accept-terms'"))
    per_claim_raw = data.get("per-claim", {}) or {}
    if not isinstance(per_claim_raw, dict):
        raise InputError(f"{where}: 'per-claim' must map claim numbers to lists of rules")
    per_claim = {}
    for num, rules in per_claim_raw.items():
        at = f"{where}: 'per-claim' {num!r}"
        if not isinstance(num, int) or isinstance(num, bool):
            raise InputError(f"{at}: expected a claim number")
        per_claim[num] = check_rule_ids(_strings(rules, at), at)
    return Suppressions(ignore, terms, per_claim, source)


def find_config(start: Path) -> Path | None:
    """The nearest ``.spg-lint.yaml`` in ``start`` (a folder) or a folder above it."""
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None
