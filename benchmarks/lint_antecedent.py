"""Antecedent-basis analysis of ``spg lint`` (spg.lint.antecedent) on real claims: warnings, recall, precision, speed.

Prints, for today's analysis (spg.lint.antecedent.check_antecedents) and, where it applies, the pattern it
replaced in the linter (spg.metrics.antecedent.unsupported_references, still PatentScore's AC):

* warnings per claim on the shared USPTO set by kind (granted US claims, EP grants, US applications): the
  development data, and on Pap2Pat (US applications only; the held-out data: the analysis was never tuned on it);
* recall on injected defects, per kind and overall, with false alarms on the same references before mutation.
  Defect sites are found by a rule of this script, not by the analysis: an introduction "a X"/"an X" (one to three
  words) whose head word occurs nowhere earlier in the claim set, whose next mention of that head is "the X" or
  "said X" at a clean phrase boundary in the same claim or a claim depending on it. The mutations: (a) the
  introduction becomes "the X"; (b) its head noun is swapped for a noun the document never uses; (c) its list item
  (between separators) is deleted; (d) a first/second, inlet/outlet, upper/lower … modifier of it is swapped
  (then only the whole phrase X must be new before the introduction). A defect counts as found when a finding
  covers the mutated introduction (a) or the reference (b–d);
* claims per second on all USPTO claims, both analyses alternated (min–max of ``--repeat`` runs, and the ratio);
* precision from a labelled sample (verdict "real" when an examiner would plausibly object to the reference under
  35 USC 112(b); the rubric is in docs/lint-antecedent.md), and how many labelled warnings the analysis still
  reports. ``--labels PATH [PATH ...]`` names the sample, one file per labeller of the same warnings (their agreement
  and the warnings all of them call real are printed too). The default is the fresh sample of this analysis:
  ``sets/lint_antecedent_seed15_{1,2}.jsonl``, 120 warnings drawn with ``--draw 120 --seed 15`` and labelled by two readers
  who never saw its code; ``sets/lint_antecedent_pap2pat_seed16_{1,2}.jsonl`` is its fresh held-out sample, drawn with
  ``--draw 120 --draw-from pap2pat --seed 16``. Beside them, samples of earlier analyses labelled the same way and
  then read to improve the grammar (``sets/lint_antecedent_seed{7,...,13}_{1,2}.jsonl``,
  ``sets/lint_antecedent_pap2pat_seed14_{1,2}.jsonl``) and the first development sample, ``sets/lint_antecedent_labels.jsonl``
  (110 warnings of an earlier analysis labelled by the person tuning it). ``--draw N`` prints a random sample of N
  warnings to label instead, ``--packet DIR`` writes it with each document's claims for the labellers.

``--splits`` prints the figures of issue 31 instead, per side of ``spg.data.checker_split`` (the judge of
spg.lint.antecedent.judge was fitted on train and its threshold chosen on dev; test is what counts), each with the
grammar alone beside the judged warning tier (what ``spg lint`` reports as warnings): warnings per claim by kind,
injected-defect recall per kind with false alarms, precision on the labelled warnings of earlier samples by the
split of their document, and ``spg.lint.lint``'s claims/s in both modes. ``--draw N --draw-from both --draw-split
test --draw-tier judged`` draws a fresh sample of the judged warning tier on test documents.

    .venv/bin/python benchmarks/lint_antecedent.py [--per-doc 6] [--repeat 3] [--seed 0] [--splits]
        [--draw N [--draw-from uspto|pap2pat|both] [--draw-split train|dev|test] [--draw-tier grammar|judged]
         [--packet DIR]]
        [--labels PATH [PATH ...]] [--precision-only]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from common import SETS, shared_file

from spg.data import CHECKER_SPLITS, checker_split
from spg.forest import Claim, Forest
from spg.lint import lint
from spg.lint.antecedent import check_antecedents
from spg.lint.antecedent.judge import tiered
from spg.metrics.antecedent import unsupported_references
from spg.parse import parse_claims

# The fresh sample of this analysis: drawn with --draw 120 --seed 15, labelled by two readers who never saw its code.
LABELS = [SETS / "lint_antecedent_seed15_1.jsonl", SETS / "lint_antecedent_seed15_2.jsonl"]


def _split(words: str) -> list[str]:
    return words.split()


SWAPS = dict(
    pair.split("/")
    for pair in [
        "first/second",
        "second/first",
        "inlet/outlet",
        "outlet/inlet",
        "upper/lower",
        "lower/upper",
        "inner/outer",
        "outer/inner",
        "left/right",
        "right/left",
        "front/rear",
        "rear/front",
        "top/bottom",
        "bottom/top",
        "input/output",
        "output/input",
        "proximal/distal",
        "distal/proximal",
    ]  # noqa: SIM905 (a table reads better as text)
)
# Nouns for the head swap (b): the first one a document never uses replaces the head.
NONCE = _split("gasket sprocket trunnion grommet ferrule bollard sconce gusset")
# Words after which a noun phrase surely ended (the site rule's clean boundary).
BOUNDARY = set(
    _split(
        "is are was were and or of to in on at with for from by that which wherein whereby being having has have "
        "comprising comprises including includes configured disposed positioned connected coupled mounted attached "
        "located arranged such when while so between into onto through"
    )
)
FUNCTION = BOUNDARY | set(_split("a an the said each any all one"))
_INTRO_RE = re.compile(r"\b(an?) ((?:[a-z][a-z-]* ){0,2}[a-z][a-z-]*)(?=[,;:.)]| (\w+))")


def kind(doc: dict) -> str:
    if doc["kind"] == "grant":
        return "US grant"
    if doc["kind"] == "ep":
        return "EP grant" if str(doc.get("kind_code") or "").startswith("B") else "EP application"
    return "US application"


def load(name: str) -> list[dict]:
    path = shared_file(name)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def read_labels(path: Path) -> list[dict]:
    """One labeller's file of a labelled sample: a warning per line, with its verdict, class and reason."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def descendants(forest: Forest) -> dict[int, set[int]]:
    """Claim number → the claims depending on it, transitively (claims are in order, parents are earlier)."""
    out: dict[int, set[int]] = {c.num: set() for c in forest.claims}
    for c in reversed(forest.claims):
        for p in c.parents:
            if p in out and p != c.num:
                out[p] |= {c.num} | out[c.num]
    return out


def _word_at(text: str, word: str, start: int = 0, end: int | None = None) -> int:
    """Where ``word`` (or its plural) first occurs as a whole word in ``text[start:end]``, -1 if nowhere."""
    form = re.escape(word[:-1]) + "(?:y|ies)" if word.endswith("y") else re.escape(word) + "(?:e?s)?"
    m = re.compile(rf"\b{form}\b", re.I).search(text, start, len(text) if end is None else end)
    return m.start() if m else -1


def sites(forest: Forest, swap: bool) -> list[tuple[int, int, int, int, int, int, str]]:
    """(intro claim index, intro start and end, ref claim index, ref start and end, phrase) for each defect site."""
    claims, below = forest.claims, descendants(forest)
    out = []
    for ci, claim in enumerate(claims):
        text = claim.text
        for m in _INTRO_RE.finditer(text):
            phrase, after = m.group(2), m.group(3)
            words = phrase.split()
            if any(w in FUNCTION for w in words) or (after is not None and after not in BOUNDARY):
                continue
            if swap and (len(words) < 2 or words[0] not in SWAPS):
                continue
            probe = phrase if swap else words[-1]
            if any(_word_at(c.text, probe) >= 0 for c in claims[:ci]) or _word_at(text, probe, 0, m.start()) >= 0:
                continue  # the head (or, for a swap, the phrase) must be new here
            ref = _next_mention(claims, ci, m.end(), probe)
            if ref is None:
                continue
            ri, rs = ref
            if ri != ci and claims[ri].num not in below[claim.num]:
                continue
            rtext = claims[ri].text
            hit = [
                d
                for d in re.finditer(rf"\b(?:the|said) {re.escape(phrase)}\b", rtext, re.I)
                if d.end() - len(probe) == rs
            ]
            if not hit:
                continue
            follow = re.match(r"(?:[,;:.)]|$| (\w+))", rtext[hit[0].end() :])
            if follow is None or (follow.group(1) is not None and follow.group(1).lower() not in BOUNDARY):
                continue
            out.append((ci, m.start(), m.end(), ri, hit[0].start(), hit[0].end(), phrase))
    return out


def _next_mention(claims, ci: int, pos: int, word: str) -> tuple[int, int] | None:
    """The next whole-word mention of ``word`` (or its plural) after ``pos`` in claim ``ci`` or any later claim."""
    at = _word_at(claims[ci].text, word, pos)
    if at >= 0:
        return ci, at
    for j in range(ci + 1, len(claims)):
        at = _word_at(claims[j].text, word)
        if at >= 0:
            return j, at
    return None


def mutate(forest: Forest, site, how: str, doc_text: str) -> tuple[Forest, int, int, int] | None:
    """The forest with one defect, and (claim number, start, end) that a finding must overlap."""
    ci, s, e, ri, rs, ref_end, phrase = site
    claims = list(forest.claims)
    text = claims[ci].text
    words = phrase.split()
    if how == "a":
        new = text[:s] + "the " + phrase + text[e:]
        claims[ci] = Claim(claims[ci].num, new, claims[ci].parents)
        return Forest(tuple(claims)), claims[ci].num, s, s + 4 + len(phrase)
    if how == "b":
        nonce = next((w for w in NONCE if w not in doc_text), None)
        if nonce is None:
            return None
        new = text[: e - len(words[-1])] + nonce + text[e:]
        delta = len(nonce) - len(words[-1])
    elif how == "c":
        left = max(text.rfind(sep, 0, s) for sep in ";,:")
        right = min((i for i in (text.find(sep, e) for sep in ";,.") if i >= 0), default=len(text))
        if left < 0 or (ri == ci and rs < right) or re.search(r"\bclaims?\b", text[left:right]):
            return None
        new = text[:left] + text[right:]
        delta = -(right - left)
    else:
        new = text[:s] + text[s:e].replace(words[0], SWAPS[words[0]], 1) + text[e:]
        delta = len(SWAPS[words[0]]) - len(words[0])
    claims[ci] = Claim(claims[ci].num, new, claims[ci].parents)
    if ri == ci:
        rs, ref_end = rs + delta, ref_end + delta
    return Forest(tuple(claims)), claims[ri].num, rs, ref_end


def covered(findings, num: int, start: int, end: int) -> bool:
    return any(f.claim == num and f.start < end and start < f.end for f in findings)


def detecting(before, after, forest: Forest, site, num: int, start: int, end: int) -> list:
    """The findings after the mutation that find it: those covering the mutated reference, else any new finding in
    the mutated claim after the site or in a claim reading it (a coordinated mention, "the first and second
    signals", may be the first to lack basis)."""
    hit = [f for f in after if f.claim == num and f.start < end and start < f.end]
    if hit:
        return hit
    ci, s = site[0], site[1]
    intro = forest.claims[ci].num
    readers = {intro} | descendants(forest)[intro]
    old = {(f.claim, f.term.lower(), f.rule) for f in before}
    return [
        f for f in after
        if (f.claim, f.term.lower(), f.rule) not in old and f.claim in readers and (f.claim != intro or f.start >= s)
    ]


def injections(forest: Forest, per_doc: int, rng: random.Random):
    """Up to ``per_doc`` defects of each kind injected into one claim set, sites shuffled by ``rng``: (kind, site,
    the mutated forest, and the claim number, start and end a finding must overlap)."""
    doc_text = " ".join(c.text for c in forest.claims).lower()
    for how in "abcd":
        picked = sites(forest, swap=how == "d")
        rng.shuffle(picked)
        n = 0
        for site in picked:
            if n == per_doc:
                break
            got = mutate(forest, site, how, doc_text)
            if got is None:
                continue
            n += 1
            yield how, site, *got


def recall(
    docs: list[dict], per_doc: int, seed: int, check: Callable[[Forest], list] = check_antecedents
) -> tuple[Counter, Counter, int, int]:
    found, tried = Counter(), Counter()
    alarms = checked = 0
    rng = random.Random(seed)
    for doc in docs:
        forest = parse_claims(doc["claims"])
        before = check(forest)
        for how, site, mutated, num, start, end in injections(forest, per_doc, rng):
            ci, s, e, ri, rs, ref_end, _ = site
            checked += 1
            alarms += covered(before, forest.claims[ri].num, rs, ref_end) or covered(before, forest.claims[ci].num, s, e)
            tried[how] += 1
            found[how] += bool(detecting(before, check(mutated), forest, site, num, start, end))
    return found, tried, alarms, checked


def rates(docs: list[dict]) -> dict[str, tuple[int, int, int, int]]:
    """kind → (claims, warnings, of which ambiguous, today's pattern's warnings)."""
    out: dict[str, list[int]] = {}
    for doc in docs:
        forest = parse_claims(doc["claims"])
        findings = check_antecedents(forest)
        row = out.setdefault(kind(doc), [0, 0, 0, 0])
        row[0] += len(forest)
        row[1] += len(findings)
        row[2] += sum(f.rule == "antecedent-ambiguous" for f in findings)
        row[3] += len(unsupported_references(forest))
    return {k: tuple(v) for k, v in out.items()}


def speed(docs: list[dict], repeat: int) -> tuple[list[float], list[float]]:
    forests = [parse_claims(doc["claims"]) for doc in docs]
    n = sum(len(f) for f in forests)
    new, ratio = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        for f in forests:
            unsupported_references(f)
        old = time.perf_counter() - t
        t = time.perf_counter()
        for f in forests:
            check_antecedents(f)
        spent = time.perf_counter() - t
        new.append(n / spent)
        ratio.append(old / spent)
    return new, ratio


def warning_tier(forest: Forest) -> list:
    """The antecedent findings ``spg lint`` reports as warnings: the grammar's, less those the judge makes notes."""
    return [f for f in tiered(forest, check_antecedents(forest)) if f.rule != "antecedent-note"]


CHECKS: dict[str, Callable[[Forest], list]] = {"grammar": check_antecedents, "judged": warning_tier}


def draw(
    docs: list[dict], n: int, seed: int, packet: Path | None, check: Callable[[Forest], list] = check_antecedents
) -> None:
    """Print ``n`` random warnings of ``check`` on ``docs`` as JSON lines to label; with ``packet``, also write them
    to ``packet/items.jsonl`` and each document's claims, as parsed, to ``packet/docs/ID.txt`` for the labellers."""
    pool = []
    for doc in docs:
        forest = parse_claims(doc["claims"])
        pool += [(doc, f) for f in check(forest)]
    items = []
    for doc, f in random.Random(seed).sample(pool, min(n, len(pool))):
        item = {"doc": doc["id"], "kind": kind(doc), "claim": f.claim, "start": f.start, "term": f.term,
                "rule": f.rule, "message": f.message}
        items.append(json.dumps(item, ensure_ascii=False))
        print(items[-1])
        if packet is not None:
            (packet / "docs").mkdir(parents=True, exist_ok=True)
            lines = [f"# {doc['id']} ({kind(doc)}): its claims as spg parsed them; 'depends on' = the claims it cites", ""]
            for c in parse_claims(doc["claims"]).claims:
                cited = f"depends on {', '.join(map(str, c.parents))}" if c.parents else "independent"
                lines += [f"[{c.num}] ({cited})", c.text, ""]
            (packet / "docs" / f"{doc['id']}.txt").write_text("\n".join(lines), encoding="utf-8")
    if packet is not None:
        (packet / "items.jsonl").write_text("".join(line + "\n" for line in items), encoding="utf-8")


def precision(data: dict[str, list[dict]], paths: list[Path]) -> None:
    """Precision on a labelled sample of one of ``data``'s sets (name → documents): per labeller, and where several
    labelled the same warnings, their agreement (Cohen's kappa for two) and the warnings all of them call real."""
    missing = [p for p in paths if not p.is_file()]
    if missing:
        print(f"precision: no labelled sample at {', '.join(map(str, missing))}")
        return
    sets = [read_labels(p) for p in paths]
    origins = {name: {d["id"] for d in docs} for name, docs in data.items()}
    assert sum(map(len, origins.values())) == len(set().union(*origins.values())), "a document id in two sets"
    by_id = {d["id"]: d for docs in data.values() for d in docs}
    found: dict[str, set] = {}

    def reported(item: dict) -> bool:
        if item["doc"] not in found:
            found[item["doc"]] = {(f.claim, f.start, f.term) for f in check_antecedents(parse_claims(by_id[item["doc"]]["claims"]))}
        return (item["claim"], item["start"], item["term"]) in found[item["doc"]]

    for path, labels in zip(paths, sets, strict=True):
        still = [i for i in labels if reported(i)]
        real, real_still = (sum(i["verdict"] == "real" for i in group) for group in (labels, still))
        origin = next((name for name, ids in origins.items() if all(i["doc"] in ids for i in labels)), "shared")
        print(f"precision on the labelled sample {path.name} ({len(labels)} warnings drawn at random from the {origin} set): "
              f"{real} real = {real / len(labels):.0%}; {len(still)} of them are still reported, {real_still} of those "
              f"real = {real_still / max(len(still), 1):.0%}")
        for k in sorted({i["kind"] for i in labels}):
            sub = [i for i in still if i["kind"] == k]
            print(f"  still reported, {k}: {sum(i['verdict'] == 'real' for i in sub)} of {len(sub)} real")
    if len(sets) > 1:
        keys = [_key(i) for i in sets[0]]
        verdict_of = [{_key(i): i["verdict"] for i in labels} for labels in sets]
        verdicts = [[v[k] for k in keys] for v in verdict_of]
        agree = sum(len(set(v)) == 1 for v in zip(*verdicts))
        line = f"labellers agree on {agree} of {len(keys)}"
        if len(sets) == 2:
            p_real = [sum(v == "real" for v in labels) / len(keys) for labels in verdicts]
            chance = p_real[0] * p_real[1] + (1 - p_real[0]) * (1 - p_real[1])
            line += f" (Cohen's kappa {(agree / len(keys) - chance) / max(1 - chance, 1e-9):.2f})"
        still = [k for k, item in zip(keys, sets[0], strict=True) if reported(item)]
        all_real = sum(all(v[k] == "real" for v in verdict_of) for k in still)
        any_real = sum(any(v[k] == "real" for v in verdict_of) for k in still)
        print(f"{line}; of the {len(still)} still reported, {all_real} are real by every labeller "
              f"({all_real / max(len(still), 1):.0%}), {any_real} by at least one ({any_real / max(len(still), 1):.0%})")
        for verdict in ("real", "false"):
            agreed = [i for i in sets[0] if all(v[_key(i)] == verdict for v in verdict_of)]
            classes = Counter(i["class"] for i in agreed).most_common()
            print(f"  {verdict} by every labeller, by the first labeller's class: "
                  + ", ".join(f"{name} {n}" for name, n in classes))
        overlap(data, paths, {k: all(v[k] == "real" for v in verdict_of) for k in keys})


def _key(item: dict) -> tuple:
    return item["doc"], item["claim"], item.get("start"), item["term"]


def overlap(data: dict[str, list[dict]], paths: list[Path], real: dict[tuple, bool]) -> None:
    """How much of a sample, and of all the analysis reports on its set, other labelled samples in benchmarks/sets
    drew too (those are development data once a round read them), and how their labellers judged the same warnings."""
    others: dict[str, list[Path]] = {}
    mine = {p.resolve() for p in paths}
    for path in sorted(SETS.glob("lint_antecedent_*.jsonl")):
        if path.resolve() not in mine:
            others.setdefault(re.sub(r"_\d\.jsonl$", "", path.name), []).append(path)
    there: dict[tuple, bool] = {}  # a warning → real by every labeller of another sample that drew it
    for group in others.values():
        for items in zip(*map(read_labels, group), strict=True):
            there[_key(items[0])] = all(i["verdict"] == "real" for i in items)
    shared = [k for k in real if k in there]
    fresh = [k for k in real if k not in there]
    print(f"  {len(shared)} of the sample's warnings were drawn in another labelled sample too: real by every labeller "
          f"{sum(real[k] for k in shared)} here, {sum(there[k] for k in shared)} there; of the {len(fresh)} drawn only "
          f"here, {sum(real[k] for k in fresh)} real")
    sample = {k[0] for k in real}  # a sample may span the sets (--draw-from both)
    docs = [d for docs in data.values() if sample & {d["id"] for d in docs} for d in docs]
    pool = [(d["id"], f.claim, f.start, f.term) for d in docs for f in check_antecedents(parse_claims(d["claims"]))]
    print(f"  of the {len(pool)} warnings the analysis reports on that set, {sum(k in there or k in real for k in pool)} "
          "are in a labelled sample")


def agreed_labels() -> dict[tuple, tuple[bool, str]]:
    """Every warning of every labelled sample in benchmarks/sets on which all its labellers agree → (real?, the
    first labeller's class)."""
    groups: dict[str, list[Path]] = {}
    for path in sorted(SETS.glob("lint_antecedent_*.jsonl")):
        groups.setdefault(re.sub(r"_\d\.jsonl$", "", path.name), []).append(path)
    out: dict[tuple, bool] = {}
    for paths in groups.values():
        for items in zip(*map(read_labels, paths), strict=True):
            if len({i["verdict"] for i in items}) == 1:
                out[_key(items[0])] = items[0]["verdict"] == "real", items[0].get("class", "unclassed")
    return out


def by_split(data: dict[str, list[dict]], per_doc: int, seed: int, repeat: int) -> None:
    """The issue-31 figures per side of ``checker_split`` (the judge was fitted on train, its threshold chosen on
    dev; test is what counts), the grammar alone beside the judged warning tier."""
    sides = {s: {name: [d for d in docs if checker_split(d["id"]) == s] for name, docs in data.items()}
             for s in CHECKER_SPLITS}
    print("Antecedent warnings per claim by split: the grammar alone → the judged warning tier")
    print("| split | data | kind | documents | claims | grammar | judged warning tier |")
    print("|---|---|---|---|---|---|---|")
    for side, sets in sides.items():
        for name, docs in sets.items():
            rows: dict[str, list[int]] = {}
            for doc in docs:
                forest = parse_claims(doc["claims"])
                row = rows.setdefault(kind(doc), [0, 0, 0, 0])
                row[0] += 1
                row[1] += len(forest)
                row[2] += len(check_antecedents(forest))
                row[3] += len(warning_tier(forest))
            for k, (n, claims, grammar, judged) in sorted(rows.items()):
                print(f"| {side} | {name} | {k} | {n} | {claims} | {grammar / claims:.3f} | {judged / claims:.3f} |")
    print(f"\nInjected defects by split (up to {per_doc} per document and kind, seed {seed}): grammar → judged "
          "warning tier; false alarms on the same references before mutation")
    print("| split | data | (a) a→the | (b) head swapped | (c) item deleted | (d) modifier swapped | false alarms |")
    print("|---|---|---|---|---|---|---|")
    for side, sets in sides.items():
        for name, docs in sets.items():
            got = {how: recall(docs, per_doc, seed, check) for how, check in CHECKS.items()}
            (gf, tried, ga, checked), (jf, _, ja, _) = got["grammar"], got["judged"]
            cells = [f"{gf[h] / max(tried[h], 1):.1%} → {jf[h]}/{tried[h]} = {jf[h] / max(tried[h], 1):.1%}" for h in "abcd"]
            print(f"| {side} | {name} | " + " | ".join(cells) + f" | {ga} → {ja} of {checked} |")
    labels = agreed_labels()
    by_id = {d["id"]: d for docs in data.values() for d in docs}
    print("\nLabelled warnings of earlier samples (every labeller agreeing) by the split of their document: real among "
          "those the grammar still reports → among those in the judged warning tier. The samples were drawn before "
          "the judge and read to tune the grammar (rounds 1-8): development data for the grammar, never seen by the "
          "judge on dev and test")
    print("| split | labelled, still reported | real | in the warning tier | real there |")
    print("|---|---|---|---|---|")
    classes: dict[tuple[str, bool], Counter] = {(side, t): Counter() for side in CHECKER_SPLITS for t in (True, False)}
    for side in CHECKER_SPLITS:
        keys = [k for k in labels if k[0] in by_id and checker_split(k[0]) == side]
        reported = tier = real = real_tier = 0
        for doc_id in sorted({k[0] for k in keys}):
            forest = parse_claims(by_id[doc_id]["claims"])
            grammar = {(doc_id, f.claim, f.start, f.term) for f in check_antecedents(forest)}
            judged = {(doc_id, f.claim, f.start, f.term) for f in warning_tier(forest)}
            for k in (k for k in keys if k[0] == doc_id and k in grammar):
                reported += 1
                real += labels[k][0]
                tier += k in judged
                real_tier += labels[k][0] and k in judged
                classes[side, k in judged][("real " if labels[k][0] else "false ") + labels[k][1]] += 1
        print(f"| {side} | {reported} | {real} ({real / max(reported, 1):.0%}) | {tier} | "
              f"{real_tier} ({real_tier / max(tier, 1):.0%}) |")
    print("By class (the first labeller's), in the warning tier / made notes:")
    for side in CHECKER_SPLITS:
        names = sorted(set(classes[side, True]) | set(classes[side, False]),
                       key=lambda c: -classes[side, True][c] - classes[side, False][c])
        print(f"  {side}: " + ", ".join(f"{c} {classes[side, True][c]}/{classes[side, False][c]}" for c in names))
    forests = [parse_claims(d["claims"]) for d in data["USPTO"]]
    n = sum(len(f) for f in forests)
    lint(forests[0])  # loads the judge once, as the first claim set with a warning does
    rates: dict[str, list[float]] = {"grammar": [], "judged": []}
    for _ in range(repeat):
        for mode in rates:
            t = time.perf_counter()
            for f in forests:
                lint(f, antecedent=mode)
            rates[mode].append(n / (time.perf_counter() - t))
    print(f"\nspg.lint.lint (every check, no description) on all {n} USPTO claims, {repeat} alternated runs: "
          + "; ".join(f"{mode} {min(r):,.0f}–{max(r):,.0f} claims/s" for mode, r in rates.items()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-doc", type=int, default=6, help="defect sites tried per document and mutation kind")
    ap.add_argument("--repeat", type=int, default=3, help="timing runs (alternating the two analyses)")
    ap.add_argument("--seed", type=int, default=0, help="seed for the defect sites and --draw")
    ap.add_argument("--draw", type=int, default=0, help="print N random warnings to label, and stop")
    ap.add_argument("--draw-from", choices=("uspto", "pap2pat", "both"), default="uspto",
                    help="the set --draw samples: the USPTO development set, the held-out Pap2Pat set, or both")
    ap.add_argument("--packet", type=Path, help="with --draw: a folder for the labellers (items.jsonl, docs/ID.txt)")
    ap.add_argument("--labels", type=Path, nargs="+", default=LABELS,
                    help="labelled sample to score precision on (JSON lines); several: the same sample by each labeller")
    ap.add_argument("--precision-only", action="store_true", help="score the labelled sample only, and stop")
    ap.add_argument("--splits", action="store_true",
                    help="the issue-31 figures per checker_split side (train, dev, test), grammar beside the judged "
                    "warning tier, and stop")
    ap.add_argument("--draw-split", choices=CHECKER_SPLITS, help="with --draw: only documents of this split")
    ap.add_argument("--draw-tier", choices=tuple(CHECKS), default="grammar",
                    help="with --draw: the grammar's warnings, or the judged warning tier (what spg lint warns of)")
    args = ap.parse_args()
    uspto = load("uspto/patents.jsonl")
    pap2pat = [] if args.draw and args.draw_from == "uspto" else load("pap2pat/patents.jsonl.gz")
    if args.draw:
        docs = {"uspto": uspto, "pap2pat": pap2pat, "both": uspto + pap2pat}[args.draw_from]
        if args.draw_split:
            docs = [d for d in docs if checker_split(d["id"]) == args.draw_split]
        draw(docs, args.draw, args.seed, args.packet, CHECKS[args.draw_tier])
        return
    if args.splits:
        by_split({"USPTO": uspto, "Pap2Pat": pap2pat}, args.per_doc, args.seed, args.repeat)
        return
    if args.precision_only:
        precision({"USPTO": uspto, "Pap2Pat": pap2pat}, args.labels)
        return
    print("Antecedent warnings per claim (spg.lint.antecedent; today's pattern, spg.metrics.antecedent, beside it)")
    print("| data | kind | claims | warnings/claim | of which ambiguous | today's pattern |")
    print("|---|---|---|---|---|---|")
    for name, docs in (("USPTO (development)", uspto), ("Pap2Pat (held out)", pap2pat)):
        for k, (claims, warnings, ambiguous, old) in sorted(rates(docs).items()):
            print(
                f"| {name} | {k} | {claims} | {warnings / claims:.3f} | {ambiguous / claims:.3f} | {old / claims:.2f} |"
            )
    print(f"\nInjected defects (up to {args.per_doc} per document and kind, seed {args.seed})")
    print(
        "| data | (a) a→the | (b) head swapped | (c) item deleted | (d) modifier swapped | overall | "
        "false alarms before mutation |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, docs in (("USPTO (development)", uspto), ("Pap2Pat (held out)", pap2pat)):
        found, tried, alarms, checked = recall(docs, args.per_doc, args.seed)
        cells = [f"{found[h]}/{tried[h]} = {found[h] / max(tried[h], 1):.1%}" for h in "abcd"]
        total, n = sum(found.values()), sum(tried.values())
        print(
            f"| {name} | " + " | ".join(cells) + f" | {total}/{n} = {total / max(n, 1):.1%} | {alarms} of {checked} |"
        )
    new, ratio = speed(uspto, args.repeat)
    print(
        f"\nSpeed on {sum(len(d['claims']) for d in uspto)} USPTO claims: {min(new):,.0f}–{max(new):,.0f} claims/s, "
        f"{min(ratio):.2f}–{max(ratio):.2f}× the speed of today's pattern in the same runs"
    )
    precision({"USPTO": uspto, "Pap2Pat": pap2pat}, args.labels)


if __name__ == "__main__":
    main()
