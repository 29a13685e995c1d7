"""Suppressions, the way linters do them: a YAML file of rules to ignore and terms to accept, and ``--ignore``.

``.spg-lint.yaml`` (found in the claim file's folder or the nearest folder above it; stdin: the working folder),
or the file ``--config`` names::

    ignore: [means-plus-function]          # rules never reported
    accept-terms: [the lever, footplate]   # terms the antecedent and description-support checks accept
    per-claim-text:                        # rules ignored in one claim, found by its words
      - {claim: 12, key: hb4pzq7mvk2d, rules: [multiple-dependency-cumulative]}
    per-claim:                             # rules ignored in claim 12, whatever claim 12 is (files before issue 42)
      12: [multiple-dependency-cumulative]

A term is compared without its determiner, case or inflection: "the levers" accepts a finding about "said lever".
A claim's ``key`` (:func:`claim_key`, each claim's ``key`` in ``spg lint --json``) hashes its words without the
claims it cites, so the suppression stays on its claim when claims are renumbered or one is inserted before it, and
lapses when the claim's own words change; ``claim`` is its number when it was suppressed, for the reader only.
Every suppressed finding is counted in the summary line.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from spg.config import read_yaml
from spg.errors import InputError
from spg.forest import Claim, Forest
from spg.lint.finding import Finding
from spg.lint.rules import RULES
from spg.lint.support import fold

CONFIG_NAME = ".spg-lint.yaml"
_KEYS = ("ignore", "accept-terms", "per-claim", "per-claim-text")
_ENTRY_KEYS = ("claim", "key", "rules")  # of a per-claim-text entry
_DETERMINER = re.compile(r"^(?:the|said|an?|one or more|at least one|a plurality of)\s+")


def term_key(term: str) -> str:
    """What two spellings of one term share: no determiner, lowercase, each word without its inflection."""
    return " ".join(fold(w) for w in _DETERMINER.sub("", " ".join(term.lower().split())).split())


def claim_key(claim: Claim) -> str:
    """What a suppression finds ``claim`` by: a hash of its words with each citation of other claims as one word
    ("of claim 3" and, renumbered, "of claim 4" read alike), case and spacing folded."""
    text, words, at = claim.text, [], 0
    for ref in claim.references:
        words += [text[at : ref.start], " claim "]
        at = ref.end
    words.append(text[at:])
    digest = hashlib.sha256(" ".join("".join(words).lower().split()).encode()).digest()
    # base32, not hex: a hex key of digits only would read as a number in a YAML file written by hand; its first 12
    # characters are those of the first 10 bytes (each 5 bytes are 8 characters), and Python's base32 is slow
    return base64.b32encode(digest[:10]).decode().lower()[:12]


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
    per_claim_key: dict[str, frozenset[str]] = field(default_factory=dict)  # claim_key() → rules

    def suppresses(self, finding: Finding, keys: dict[int, set[str]] | None = None) -> bool:
        """Whether ``finding`` is suppressed; ``keys`` holds the claim_key() of each claim number's claims."""
        if finding.rule in self.ignore or finding.rule in self.per_claim.get(finding.claim, ()):
            return True
        if keys and any(finding.rule in self.per_claim_key.get(k, ()) for k in keys.get(finding.claim, ())):
            return True
        return finding.term is not None and term_key(finding.term) in self.accept_terms

    def split(self, findings: list[Finding], forest: Forest | None = None) -> tuple[list[Finding], int]:
        """(the findings still reported, how many were suppressed); ``forest`` is the claim set they are about,
        whose claims' words the per-claim-text entries are matched against."""
        keys: dict[int, set[str]] = {}
        if self.per_claim_key and forest is not None:
            for claim in forest.claims:
                keys.setdefault(claim.num, set()).add(claim_key(claim))
        kept = [f for f in findings if not self.suppresses(f, keys)]
        return kept, len(findings) - len(kept)

    def with_ignored(self, rules: Iterable[str]) -> Suppressions:
        return Suppressions(self.ignore | frozenset(rules), self.accept_terms, self.per_claim, self.source,
                            self.per_claim_key)


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
    return Suppressions(ignore, terms, per_claim, source, _per_claim_key(data.get("per-claim-text", []), where))


def _per_claim_key(entries: object, where: str) -> dict[str, frozenset[str]]:
    """The per-claim-text entries, checked, as claim key → rules (two entries for one claim: their rules together)."""
    if not isinstance(entries, list):
        raise InputError(f"{where}: 'per-claim-text' must be a list of {{claim, key, rules}} entries")
    out: dict[str, frozenset[str]] = {}
    for n, entry in enumerate(entries, 1):
        at = f"{where}: 'per-claim-text' entry {n}"
        if not isinstance(entry, dict) or not {"key", "rules"} <= entry.keys() or entry.keys() - set(_ENTRY_KEYS):
            raise InputError(f"{at}: expected a mapping with the keys key and rules (and claim), got {entry!r:.60}")
        key, claim = entry["key"], entry.get("claim")
        if not isinstance(key, str) or not re.fullmatch(r"[a-z2-7]{12}", key):
            raise InputError(f"{at}: 'key' must be a claim's key (12 letters and digits: spg lint --json gives each "
                             f"claim's), got {key!r:.60}")
        if claim is not None and (not isinstance(claim, int) or isinstance(claim, bool)):
            raise InputError(f"{at}: 'claim' must be a claim number, got {claim!r:.60}")
        out[key] = out.get(key, frozenset()) | check_rule_ids(_strings(entry["rules"], at), at)
    return out


def find_config(start: Path) -> Path | None:
    """The nearest ``.spg-lint.yaml`` in ``start`` (a folder) or a folder above it."""
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None
