"""``spg lint``'s rules other than antecedent basis on the shared USPTO set (the antecedent figures are
benchmarks/lint_antecedent.py's).

Printed, by document kind (US grants, US applications, EP):

* **1.75(c) recall** on injected defects: a dependent claim's citation "claim P" rewritten "claims Q and P"
  (cumulative), and a multiple dependent claim made the basis of another ("claim P or Q", then a later claim
  "claim K or R" citing it). Must be 100%.
* **structure recall** on injected defects in the flat claim text, reparsed as ``spg lint`` reads a file: a
  citation of a later claim, of a missing claim, of the claim itself; a numbering gap (an uncited claim removed);
  a duplicate number (claim m+1 numbered m).
* **findings on the unmodified claims** (structure and 1.75(c); a numbering gap where the source says cancelled
  claims were dropped is left out), each listed by document and claim so that it can be read: on US documents
  every one is a real defect of the published text (docs/lint.md).
* **description-support warnings** per claim against each record's own description, and **112(f)** info per claim.
* **restatement, preamble and commentary rules per unmodified claim** (issue 43's bound: 0.01 each), by kind and side of
  ``spg.data.checker_split`` (the test side is what counts; train and dev are where rules were tuned).
* **claims/s** in process: what ``spg lint`` computed before these rules (structure, antecedent basis), the whole
  pipeline (``spg.lint.lint``: every check, suppressions) without and with the description, and with parsing the
  flat text too; min-max of ``--repeat`` alternated runs.

    .venv/bin/python benchmarks/lint_rules.py [--repeat 3] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter, defaultdict

from common import shared_records

from spg.data import checker_split
from spg.forest import Forest
from spg.lint import find_all, lint
from spg.metrics.antecedent import unsupported_references
from spg.parse import extract_references, parse_claims, unread_citations

KINDS = {"grant": "US grants", "application": "US applications", "ep": "EP"}
STRUCTURE = {"empty", "no-independent", "duplicate-number", "bad-number", "missing-number", "unnumbered-claim", "out-of-order",
             "self-reference", "missing-parent", "forward-reference", "broken-parent", "unread-citation"}
STATUTE = {"multiple-dependency-cumulative", "multiple-dependent-basis"}
MEANING = ("duplicate-claim", "not-further-limiting", "repeated-limitation", "preamble-mismatch", "not-a-claim")


def single_citations(forest: Forest) -> dict[int, tuple[int, int, int]]:
    """Claim → (start, end, cited) of its one citation, for dependent claims citing exactly one earlier claim."""
    out = {}
    for claim in forest.claims:
        refs = extract_references(claim.text, claim.num)
        if len(refs) == 1 and len(refs[0].nums) == 1 and claim.parents == refs[0].nums:
            out[claim.num] = (refs[0].start, refs[0].end, refs[0].nums[0])
    return out


def rewrite(forest: Forest, edits: dict[int, str]) -> Forest:
    """The claim set with the citation of each claim in ``edits`` replaced, parents read again from the text."""
    cites = single_citations(forest)
    records = []
    for claim in forest.claims:
        text = claim.text
        if claim.num in edits:
            start, end, _ = cites[claim.num]
            text = text[:start] + edits[claim.num] + text[end:]
        records.append({"num": claim.num, "text": text})
    return parse_claims(records)


def found(forest: Forest, rule: str, claim: int | None) -> bool:
    return any(f.rule == rule and f.claim == claim for f in find_all(forest))


def statute_injections(forest: Forest, rng: random.Random) -> dict[str, bool]:
    """Each 1.75(c) injection this claim set allows → whether lint reported it at the right claim."""
    cites = single_citations(forest)

    def others(below: int, *but: int) -> list[int]:
        return [n for n in range(1, below) if n not in but and n in forest.by_num]

    out = {}
    cumulative = [k for k, (_, _, p) in cites.items() if others(k, p)]
    if cumulative:
        k = rng.choice(cumulative)
        p = cites[k][2]
        q = rng.choice(others(k, p))
        out["cumulative 'and' citation"] = found(rewrite(forest, {k: f"claims {min(p, q)} and {max(p, q)}"}),
                                                 "multiple-dependency-cumulative", k)
    pairs = [(a, b) for a in cites for b in cites if a < b and others(a, cites[a][2])]
    if pairs:
        a, b = rng.choice(pairs)
        qa = rng.choice(others(a, cites[a][2]))
        r = rng.choice(others(b, a))
        edited = rewrite(forest, {a: f"claim {cites[a][2]} or {qa}", b: f"claim {a} or {r}"})
        out["multiple dependent on multiple dependent"] = found(edited, "multiple-dependent-basis", b)
    return out


def structure_injections(forest: Forest, rng: random.Random) -> dict[str, bool]:
    """Each structural injection into the flat text → whether lint reported it (rule and claim)."""
    cites = single_citations(forest)
    nums = [c.num for c in forest.claims]
    if len(nums) < 3 or nums != list(range(1, len(nums) + 1)):
        return {}
    texts = {c.num: c.text for c in forest.claims}

    def flat(body: dict[int, str], numbers: dict[int, int] | None = None) -> Forest:
        numbers = numbers or {}
        return parse_claims(" ".join(f"{numbers.get(n, n)}. {t}" for n, t in body.items()))

    def cite(k: int, new: str) -> dict[int, str]:
        start, end, _ = cites[k]
        return {**texts, k: texts[k][:start] + new + texts[k][end:]}

    out = {}
    later = [k for k in cites if k < len(nums)]
    if later:
        k = rng.choice(later)
        out["citation of a later claim"] = found(flat(cite(k, f"claim {rng.randint(k + 1, len(nums))}")),
                                                 "forward-reference", k)
    if cites:
        k = rng.choice(list(cites))
        out["citation of a missing claim"] = found(flat(cite(k, f"claim {len(nums) + 7}")), "missing-parent", k)
        k = rng.choice(list(cites))
        out["citation of its own claim"] = found(flat(cite(k, f"claim {k}")), "self-reference", k)
    cited = {p for c in forest.claims for p in c.parents}
    removable = [n for n in nums[1:-1] if n not in cited]
    if removable:
        m = rng.choice(removable)
        out["numbering gap"] = found(flat({n: t for n, t in texts.items() if n != m}), "missing-number", None)
    m = rng.choice(nums[1:-1])
    out["duplicate number"] = found(flat(texts, {m + 1: m}), "duplicate-number", m)
    return out


def unmodified_findings(record) -> list[tuple[str, int | None]]:
    """(rule, claim) of the structure and 1.75(c) findings on the unmodified claim set, read from its flat text as
    ``spg lint`` reads a file (a numbering gap where the source says cancelled claims were dropped is left out)."""
    forest = parse_claims(record.fields.get("claims_text") or "")
    gaps_expected = int(record.fields.get("cancelled_claims_dropped") or 0) > 0
    return [
        (f.rule, f.claim) for f in find_all(forest)
        if (f.rule in STRUCTURE or f.rule in STATUTE) and not (gaps_expected and f.rule == "missing-number")
    ]


def main_branch_lint(forest: Forest) -> None:
    """What ``spg lint`` computed before the statutory checks (structure, unread citations, antecedent basis): the
    reference for the speed ratio."""
    forest.diagnostics()
    unread_citations(forest)
    unsupported_references(forest)


def rates(records, repeat: int) -> dict[str, tuple[float, float]]:
    """claims/s of each contender, alternated within each of ``repeat`` rounds."""
    claims = sum(len(r.claims) for r in records)
    contenders = {
        "before (structure + antecedent)": lambda r: main_branch_lint(r.claims),
        "lint, no description": lambda r: lint(r.claims),
        "lint with the description": lambda r: lint(r.claims, r.description),
        "parse flat text + lint with the description": lambda r: lint(
            parse_claims(r.fields.get("claims_text") or ""), r.description),
    }
    seen: dict[str, list[float]] = defaultdict(list)
    for _ in range(repeat):
        for name, run in contenders.items():
            start = time.perf_counter()
            for r in records:
                run(r)
            seen[name].append(claims / (time.perf_counter() - start))
    return {name: (min(v), max(v)) for name, v in seen.items()}


def print_sample(records, n: int, seed: int) -> None:
    """``n`` random description-support warnings with 45 characters of their claim on each side."""
    warnings = [(r, f) for r in records for f in find_all(r.claims, r.description) if f.rule == "description-support"]
    print(f"\n{n} random description-support warnings on US grants (seed {seed}):")
    for i, (r, f) in enumerate(random.Random(seed).sample(warnings, min(n, len(warnings))), 1):
        text = r.claims.by_num[f.claim].text
        print(f"  {i:2d} {r.id} claim {f.claim} {f.term!r}: …{text[max(0, f.start - 45) : f.end + 25]}…")


def percent(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100 * hits / total:.1f}%)" if total else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of the whole set (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the injected defects (default 0)")
    parser.add_argument("--sample", type=int, default=0, metavar="N",
                        help="also print N random description-support warnings on US grants, in context, to judge")
    args = parser.parse_args()
    records = [r for r in shared_records() if r.fields.get("kind") in KINDS]
    rng = random.Random(args.seed)

    print(f"shared USPTO set: {len(records)} documents, {sum(len(r.claims) for r in records)} claims\n")
    for title, inject in (("37 CFR 1.75(c) injected", statute_injections),
                          ("structure injected", structure_injections)):
        hits: dict[str, list[bool]] = defaultdict(list)
        for r in records:
            for kind, ok in inject(r.claims, rng).items():
                hits[kind].append(ok)
        print(f"{title}:")
        for kind, oks in hits.items():
            print(f"  {kind:42s} {percent(sum(oks), len(oks))}")
        print(f"  {'all':42s} {percent(sum(map(sum, hits.values())), sum(map(len, hits.values())))}")

    print("\nper kind        claims  structure  1.75(c)  support warnings/claim  112(f) info/claim")
    unmodified = []
    for kind, name in KINDS.items():
        group = [r for r in records if r.fields.get("kind") == kind]
        claims = sum(len(r.claims) for r in group)
        found_here = [(r.id, rule, claim) for r in group for rule, claim in unmodified_findings(r)]
        unmodified += found_here if kind != "ep" else []
        rules = Counter(f.rule for r in group for f in find_all(r.claims, r.description))
        structure = sum(rule in STRUCTURE for _, rule, _ in found_here)
        statute = sum(rule in STATUTE for _, rule, _ in found_here)
        info = rules["means-plus-function"] + rules["step-plus-function"]
        print(f"{name:15s} {claims:6d}  {structure:9d}  {statute:7d}  {rules['description-support'] / claims:22.3f}"
              f"  {info / claims:17.3f}")
    print("(structure and 1.75(c): findings on the unmodified flat text; EP is not under 37 CFR 1.75(c))")
    print("US findings on unmodified claims (claim: rule), to be read in each document:")
    by_doc: dict[str, list[str]] = defaultdict(list)
    for doc, rule, claim in unmodified:
        by_doc[doc].append(f"{claim}: {rule}")
    for doc, found_in_doc in by_doc.items():
        print(f"  {doc}  " + ", ".join(found_in_doc))

    print("\nper unmodified claim, by side of checker_split: " + ", ".join(MEANING))
    for kind, name in KINDS.items():
        for side in ("train", "dev", "test"):
            group = [r for r in records if r.fields.get("kind") == kind and checker_split(r.id) == side]
            claims = sum(len(r.claims) for r in group)
            rules = Counter(f.rule for r in group for f in find_all(r.claims))
            print(f"  {name:15s} {side:5s} {claims:5d} claims  "
                  + "  ".join(f"{rules[rule] / max(claims, 1):.4f}" for rule in MEANING))

    if args.sample:
        print_sample([r for r in records if r.fields.get("kind") == "grant"], args.sample, args.seed)

    print(f"\nclaims/s in process over the {len(records)} documents, min-max of {args.repeat} alternated runs:")
    for name, (low, high) in rates(records, args.repeat).items():
        print(f"  {name:45s} {low:7,.0f}-{high:,.0f}")

if __name__ == "__main__":
    main()
