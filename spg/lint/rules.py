"""Every rule ``spg lint`` applies: a stable id (what ``--ignore`` and suppression files name), its severity,
its source in law or practice, and one sentence a drafter understands. docs/lint.md explains each at length."""

from __future__ import annotations

from dataclasses import dataclass

from spg.lint.finding import Severity


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    source: str
    explanation: str


_STRUCTURE = "claim-set structure (37 CFR 1.75(c), (g); 1.126)"
_RULES = (
    Rule("empty", "error", _STRUCTURE, "The input holds no claim."),
    Rule("empty-claim", "error", "37 CFR 1.75(a), (i)", "A claim number with no claim text after it ('2.' alone)."),
    Rule("no-independent", "error", _STRUCTURE, "Every claim cites another claim, so no claim stands on its own."),
    Rule("duplicate-number", "error", "37 CFR 1.126", "Two claims carry the same number."),
    Rule("bad-number", "warning", "37 CFR 1.126", "A claim number below 1."),
    Rule("missing-number", "warning", "37 CFR 1.126",
         "Claims must be numbered consecutively; numbers the input lists as cancelled ('3. (Canceled)') are no gap."),
    Rule("unnumbered-claim", "warning", "37 CFR 1.126",
         "A line that opens as a claim of its own ('The method of claim 1, wherein …') carries no number; it is read "
         "as a claim numbered after the one above it."),
    Rule("out-of-order", "warning", "37 CFR 1.126", "A claim comes after a claim with a higher number."),
    Rule("self-reference", "error", "37 CFR 1.75(c)", "A claim cites itself."),
    Rule("missing-parent", "error", "37 CFR 1.75(c)", "A claim cites a claim that does not exist."),
    Rule("forward-reference", "error", "37 CFR 1.75(c)",
         "A dependent claim may only refer back to a claim previously set forth."),
    Rule("broken-parent", "error", "37 CFR 1.75(c)", "A claim depends on a claim whose own dependency is broken."),
    Rule("unread-citation", "warning", "spg parser",
         "A claim read as independent seems to cite a claim through a misspelt word such as 'cam 1'."),
    Rule("not-a-claim", "warning", "37 CFR 1.75(a); MPEP 608.01(m)",
         "Text in a claim's place that talks about claims, the invention or its reader ('Here is the next claim:', "
         "'The present invention relates to', 'I hope'), as a language model's chat does: it claims nothing, and no "
         "antecedent basis is read in it."),
    Rule("antecedent", "warning", "35 USC 112(b); MPEP 2173.05(e)",
         "A definite reference ('the X', 'said X') without an earlier introduction ('a X') in the claim or the "
         "claims it depends on."),
    Rule("antecedent-note", "info", "35 USC 112(b); MPEP 2173.05(e)",
         "A definite reference without an explicit introduction that the learned judge reads as an inherent part or "
         "property, or as something the claimed context implies; read it, an examiner is unlikely to object."),
    Rule("antecedent-ambiguous", "warning", "35 USC 112(b); MPEP 2173.05(e)",
         "A definite reference that two or more earlier introductions could be meant by."),
    Rule("multiple-introduction", "warning", "35 USC 112(b); MPEP 2173.05(e)",
         "One element introduced twice in a claim ('a lower step … a lower step'), or again by a dependent claim "
         "('further comprising a frame' under its parent's 'a frame'): a later 'the lower step' could mean either; "
         "refer to it as 'the …', or tell the two apart ('a first …', 'a second …')."),
    Rule("multiple-dependency-cumulative", "error", "37 CFR 1.75(c); 35 USC 112(e); MPEP 608.01(n)",
         "A claim citing several claims must cite them in the alternative only ('claim 1 or 2', 'any one of "
         "claims 1-3'), with one set of alternatives; 'claims 1 and 2' is cumulative."),
    Rule("multiple-dependent-basis", "error", "37 CFR 1.75(c); 35 USC 112(e); MPEP 608.01(n)",
         "A multiple dependent claim may not serve as a basis for another multiple dependent claim, directly or "
         "through the claims between them."),
    Rule("means-plus-function", "info", "35 USC 112(f); MPEP 2181",
         "'means for' + a function: construed to cover only the structure the description discloses for that "
         "function and its equivalents, so the description must disclose one."),
    Rule("step-plus-function", "info", "35 USC 112(f); MPEP 2181",
         "'step for' + a function: construed to cover only the acts the description discloses and their "
         "equivalents."),
    Rule("duplicate-claim", "warning", "MPEP 706.03(k); 37 CFR 1.75(b)",
         "Two claims with the same parent(s), or both independent, that read the same (or recite the same "
         "limitations in another order or other words): the later one claims nothing new."),
    Rule("not-further-limiting", "warning", "35 USC 112(d); MPEP 608.01(n) III",
         "A dependent claim must narrow the claim it refers to; this one only restates limitations its parent chain "
         "already recites, or adds none."),
    Rule("contradicts-parent", "warning", "35 USC 112(b), (d); MPEP 608.01(n) III",
         "A dependent claim says of an element the opposite of what a claim it depends on says of it ('pivoted to "
         "the front frame' under 'fixed to the front frame'): it drops a limitation of its parent, and the two cannot "
         "both hold."),
    Rule("range-outside-parent", "warning", "35 USC 112(d); MPEP 608.01(n) III",
         "A dependent claim's range for a quantity must lie within the range the claims it depends on give that "
         "quantity ('lower than 0.5' under 'lower than 0.3'): otherwise it drops a limitation of its parent."),
    Rule("repeated-limitation", "warning", "37 CFR 1.75(a), (b); MPEP 2173.05(o)",
         "The claim recites the same limitation (clause) twice; say it once."),
    Rule("restatement", "warning", "35 USC 112(d); MPEP 608.01(n) III, 706.03(k)",
         "A dependent claim the learned restatement reader (spg lint --restatement read) reads as adding nothing new "
         "in other words to the claims up its chain or an earlier sibling; the word rules found no repetition."),
    Rule("preamble-mismatch", "warning", "35 USC 112(d); MPEP 608.01(n) II-III",
         "A dependent claim claims what its parent claims, further limited; this one's preamble names another "
         "subject or statutory category ('The method of claim 1' under an apparatus claim)."),
    Rule("description-support", "warning", "37 CFR 1.75(d)(1); MPEP 608.01(o)",
         "Claim terms must find clear support or antecedent basis in the description; this word of the term "
         "appears in the description in no form."),
)
RULES: dict[str, Rule] = {r.id: r for r in _RULES}
