"""The lint pipeline: every check over one claim set, suppressions applied, one list of :class:`Finding`."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from spg.forest import Forest
from spg.lint.antecedent import check_antecedents
from spg.lint.clauses import ancestry, read_claims
from spg.lint.commentary import ANTECEDENT_RULES, check_commentary
from spg.lint.contradiction import check_contradictions
from spg.lint.dependency import check_multiple_dependency
from spg.lint.finding import SEVERITIES, Finding, from_diagnostic
from spg.lint.means import check_means_plus_function
from spg.lint.preamble import check_preambles
from spg.lint.ranges import check_ranges
from spg.lint.redundancy import check_redundancy
from spg.lint.rules import RULES
from spg.lint.support import check_description_support
from spg.lint.suppress import Suppressions
from spg.parse import unread_citations

if TYPE_CHECKING:
    from spg.lint.fees import ClaimCounts
    from spg.lint.terms import Term


@dataclass(frozen=True)
class LintResult:
    """What ``spg lint`` found in one claim set: the findings still reported, in claim order (set-level ones
    first), and how many the suppressions removed."""

    forest: Forest
    findings: list[Finding]
    suppressed: int = 0
    description_checked: bool = False
    terms: list[Term] | None = None  # the term map, when asked for (lint(terms=True))

    def count(self, severity: str) -> int:
        return sum(f.severity == severity for f in self.findings)

    @property
    def failed(self) -> bool:
        """Whether an error is left: ``spg lint`` then exits 1."""
        return any(f.severity == "error" for f in self.findings)

    def summary(self) -> dict[str, int]:
        return {**{s: self.count(s) for s in SEVERITIES}, "suppressed": self.suppressed}

    @cached_property
    def claim_count(self) -> ClaimCounts:
        """The counts the USPTO charges by (:mod:`spg.lint.fees`), worked out once, when a report first shows them."""
        from spg.lint.fees import claim_counts

        return claim_counts(self.forest)


# grammar first: the default. The judge cut warnings per granted US claim from 0.136 to 0.049 on the test split but
# left the warning tier no more precise (27 % real on a fresh blind sample, the grammar's 22-34 %), so it is opt-in
# (docs/lint-antecedent.md, "The judge").
ANTECEDENT_MODES = ("grammar", "judged")
# rules first: the default. ``read`` adds the learned restatement reader's warnings (spg.lint.meaning) where the word
# rules found no repetition (docs/lint.md, "The restatement reader").
RESTATEMENT_MODES = ("rules", "read")


def antecedent_findings(forest: Forest, mode: str = "grammar", terms: list[Term] | None = None) -> list[Finding]:
    """The antecedent analysis's findings. ``grammar`` (the default): the claim grammar's warnings as they are;
    ``judged``: the learned judge reads each ``antecedent`` warning and makes those it scores as inherent or
    contextual ``antecedent-note`` (info) (docs/lint-antecedent.md, "The judge"). A ``terms`` list receives the term
    map, read in the same pass."""
    if mode not in ANTECEDENT_MODES:
        raise ValueError(f"antecedent mode {mode!r}; expected one of {', '.join(ANTECEDENT_MODES)}")
    if terms is None:
        found = check_antecedents(forest)
    else:
        from spg.lint.terms import read_terms

        found = read_terms(forest, terms)
    if mode == "judged" and any(a.rule == "antecedent" for a in found):
        from spg.lint.antecedent.judge import tiered  # imported only where there is a warning to judge

        found = tiered(forest, found)
    return [Finding(a.rule, RULES[a.rule].severity, a.claim, a.message, a.start, a.end, a.term) for a in found]


def find_all(forest: Forest, description: str | None = None, antecedent: str = "grammar",
             terms: list[Term] | None = None, restatement: str = "rules") -> list[Finding]:
    """Every finding of every check, before suppressions, in claim order then by place in the claim;
    ``antecedent`` is the mode of :func:`antecedent_findings`, which fills ``terms`` (when given); ``restatement``
    one of :data:`RESTATEMENT_MODES`."""
    if restatement not in RESTATEMENT_MODES:
        raise ValueError(f"restatement mode {restatement!r}; expected one of {', '.join(RESTATEMENT_MODES)}")
    found = [from_diagnostic(d) for d in forest.diagnostics() + unread_citations(forest)]
    commentary = check_commentary(forest)
    chat = {f.claim for f in commentary}
    found += commentary + [f for f in antecedent_findings(forest, antecedent, terms)
                           if f.claim not in chat or f.rule not in ANTECEDENT_RULES]
    found += check_multiple_dependency(forest)
    found += check_means_plus_function(forest)
    readings, above = read_claims(forest), ancestry(forest)  # read once for the rules that read along chains
    found += check_redundancy(forest, readings, above)
    if restatement == "read":
        from spg.lint.meaning.reader import restatement_findings  # numpy and the vectors load only when asked

        found += restatement_findings(forest, readings, above, found)
    found += check_preambles(forest, readings, above)
    found += check_contradictions(forest, readings, above)
    found += check_ranges(forest, readings)
    if description is not None:
        found += check_description_support(forest, description)
    position = {c.num: i for i, c in reversed(list(enumerate(forest.claims)))}
    # sorted() is stable: at one place, structure comes first, then the checks in the order above
    return sorted(found, key=lambda f: (-1 if f.claim is None else position.get(f.claim, -1), f.start or 0))


def lint(
    forest: Forest,
    description: str | None = None,
    suppressions: Suppressions | None = None,
    antecedent: str = "grammar",
    terms: bool = False,
    restatement: str = "rules",
) -> LintResult:
    """Lint one claim set; ``description`` (when given) adds the description-support check; ``antecedent``:
    ``grammar`` or ``judged`` (:func:`antecedent_findings`); ``terms``: keep the term map (reports show it);
    ``restatement``: ``rules`` or ``read`` (:func:`find_all`)."""
    term_list: list[Term] | None = [] if terms else None
    found = find_all(forest, description, antecedent, term_list, restatement)
    kept, suppressed = (suppressions or Suppressions()).split(found, forest)
    return LintResult(forest, kept, suppressed, description is not None, term_list)
