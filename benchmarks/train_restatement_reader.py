"""Train the restatement reader of ``spg lint --restatement read`` (spg.lint.meaning) and measure it, held out.

Held-out discipline: every document falls in ``spg.data.checker_split``'s train, dev or test side by its id (an LLM
item by its ``split``). The regression is fitted on train documents only, its C and threshold are chosen on dev,
and test is only measured, here and in the same run:

* examples (one per dependent claim, read against the claims before it): the blind-labelled LLM claims
  (``--llm ITEMS SHEET_A SHEET_B``, repeatable; an item counts where both sheets agree: repetition yes = 1, no = 0),
  weight 1; the written next claims (``benchmarks/sets/lint_next_claim_devset*.jsonl``: non-distinctive repetition
  = 1, error-free = 0), weight ``--written-weight`` (written to a definition, not by a model on its own); every
  dependent claim of the shared USPTO set and of Pap2Pat = 0 (claims an examiner allowed, or an applicant filed),
  together weighing ``--granted-mass`` times the rest;
* features (spg.lint.meaning.features) over static vectors distilled from all-MiniLM-L6-v2 (``piece_vectors`` of
  train_antecedent_judge.py, cached in ``--work``; needs ``spg[eval]`` and torch once);
* boosted trees (scikit-learn's HistGradientBoostingClassifier, depth 3; a logistic regression ranked the dev
  claims worse), the setting from ``--settings`` and the threshold on dev: the lowest threshold at which the reader's own findings (claims no
  repetition rule flags) stay at most ``--granted-rate`` per claim on the dev US grants and on the dev EP claims;
  the setting ranking the dev side's labelled claims that no repetition rule flags best (average precision);
* test: LLM repetitions found and error-free claims flagged (as ``benchmarks/llm_claims.py --score`` counts them:
  a repetition rule, ``preamble-mismatch`` or an antecedent warning), rules alone against rules with the reader,
  per generator; the written test sets; the reader's findings per granted test claim. ``--held-out`` also trains
  without each generator family that has repetitions (train and dev items of it dropped) and measures that
  family's test items.

    python benchmarks/train_restatement_reader.py [--out spg/pretrained/restatement-reader] [--held-out]
    python benchmarks/train_restatement_reader.py --llm NEW_ITEMS LABELS_1 LABELS_2   # more labelled items too
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from common import SETS, bad, jsonl_rows, shared_file, shared_records
from llm_claims import ITEMS, item_forest, read_sheet
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import average_precision_score
from train_antecedent_judge import piece_vectors

from spg.data import checker_split, load_records
from spg.forest import Forest
from spg.lint import lint
from spg.lint.clauses import ancestry, read_claims
from spg.lint.meaning.features import FEATURES, SetFeatures
from spg.lint.meaning.reader import REPETITION_RULES, Reader
from spg.lint.meaning.vectors import DIRECTORY, Vectors
from spg.lint.redundancy import check_redundancy
from spg.parse import parse_claims

WRITTEN = sorted(SETS.glob("lint_next_claim_devset*.jsonl"))
WRITTEN_LABELS = {"non-distinctive repetition": 1, "error-free": 0}
FLAG_RULES = REPETITION_RULES | {"preamble-mismatch"}  # with antecedent warnings: what llm_claims.py counts as a flag


@dataclass
class Example:
    kind: str  # llm, written, or the granted set's kind (grant, ep, application, pap2pat)
    split: str
    source: str  # the generator (LLM items), the written set's file, or the document
    x: list[float] | None  # None: the reader reads nothing there (no chain, no content word after the citation)
    label: int | None = None  # restatement (1) or not (0) where known
    repetition_hit: bool = False  # a repetition rule flags the claim
    flagged: bool = False  # a repetition or preamble rule or an antecedent warning flags it
    error_free: bool = False  # both readers (LLM items) or the writer (written sets) call it error-free
    weight: float = 1.0
    tags: dict = field(default_factory=dict)


def family(source: str) -> str:
    """The generator family of an LLM item's source: one model's outputs, whatever the prompt."""
    return "smollm2" if source.startswith("smollm2") else "spg" if source.startswith("spg") else source.split(":")[0]


def _candidate_example(kind, split, source, forest: Forest, num: int, vectors: Vectors) -> Example:
    """The claim numbered ``num`` (the last of that number) read in ``forest``, with the rules' findings on it."""
    found = [f for f in lint(forest).findings if f.claim == num]
    rules = {f.rule for f in found}
    index = max(i for i, c in enumerate(forest.claims) if c.num == num)
    got = None
    if forest.claims[index].parents:
        got = SetFeatures(forest, read_claims(forest), ancestry(forest), vectors).features(index)
    return Example(kind, split, source, got[0] if got else None, repetition_hit=bool(rules & REPETITION_RULES),
                   flagged=bool(rules & FLAG_RULES) or any(f.rule == "antecedent" and f.severity == "warning"
                                                           for f in found))


def llm_examples(corpora: list[tuple[Path, Path, Path]], vectors: Vectors) -> list[Example]:
    out, seen = [], set()
    for items_path, sheet_a, sheet_b in corpora:
        items = {row["id"]: row for _, row in jsonl_rows(items_path)}
        a, b = read_sheet(sheet_a, items), read_sheet(sheet_b, items)
        for i in items:
            if i in seen or i not in a or i not in b:
                continue
            seen.add(i)
            item = items[i]
            e = _candidate_example("llm", item["split"], item["source"], item_forest(item), item["claim"],
                                   vectors)
            answers = {a[i]["repetition"], b[i]["repetition"]}
            e.label = 1 if answers == {"yes"} else 0 if answers <= {"no", "n/a"} else None
            e.error_free = a[i]["error_free"] == b[i]["error_free"] == "yes"
            e.tags = {"id": i}
            out.append(e)
    return out


def written_examples(weight: float, vectors: Vectors) -> list[Example]:
    documents = {r.id: r for r in shared_records()}
    out = []
    for path in WRITTEN:
        for line_no, row in jsonl_rows(path):
            if row.get("category") not in WRITTEN_LABELS:
                continue
            if row.get("id") not in documents:
                bad(f"{path} line {line_no}: {row.get('id')!r} is no document of the shared USPTO set")
            given = [c for c in documents[row["id"]].claims.claims if c.num <= row["k"]]
            candidate = parse_claims(row["candidate"]).claims
            if len(candidate) != 1:
                bad(f"{path} line {line_no}: the candidate does not read as one claim")
            e = _candidate_example("written", checker_split(row["id"]), path.name,
                                   Forest.from_claims([*given, candidate[0]]), candidate[0].num, vectors)
            e.label, e.error_free, e.weight = WRITTEN_LABELS[row["category"]], row["category"] == "error-free", weight
            out.append(e)
    return out


def granted_examples(vectors: Vectors) -> list[Example]:
    """Every dependent claim of the shared USPTO set (by its kind) and of Pap2Pat, as a clean example; with the
    number of claims per document (``tags['claims']`` on the first), for findings per claim."""
    out = []
    sources = [(r, r.fields.get("kind", "?")) for r in shared_records()]
    sources += [(r, "pap2pat") for r in load_records(shared_file("pap2pat/patents.jsonl.gz"))]
    for record, kind in sources:
        forest = record.claims
        readings, above = read_claims(forest), ancestry(forest)
        hit = {f.claim for f in check_redundancy(forest, readings, above)}
        read = SetFeatures(forest, readings, above, vectors)
        split = checker_split(record.id)
        first = True
        for index, claim in enumerate(forest.claims):
            got = read.features(index) if claim.parents and forest.by_num.get(claim.num) is claim else None
            if got is None and not first:
                continue
            e = Example(kind, split, record.id, got[0] if got else None, 0, claim.num in hit)
            e.tags = {"claims": len(forest.claims)} if first else {}
            first = False
            out.append(e)
    return out


def fit(examples: list[Example], rate: float, rounds: int, granted_mass: float) -> HistGradientBoostingClassifier:
    """Boosted trees (depth 3) on the train side's labelled examples, the granted claims weighing ``granted_mass``
    times the rest together."""
    # a granted claim a repetition rule flags is no clean example, and the reader never speaks where a rule did
    train = [e for e in examples if e.split == "train" and e.label is not None and e.x is not None
             and not (e.repetition_hit and e.kind not in ("llm", "written"))]
    granted = [e.kind not in ("llm", "written") for e in train]
    rest = sum(e.weight for e, g in zip(train, granted) if not g)
    per_granted = granted_mass * rest / max(sum(granted), 1)
    w = np.array([per_granted if g else e.weight for e, g in zip(train, granted)])
    model = HistGradientBoostingClassifier(learning_rate=rate, max_iter=rounds, max_depth=3, min_samples_leaf=40,
                                           early_stopping=False, random_state=0)
    return model.fit(np.array([e.x for e in train]), [e.label for e in train], sample_weight=w)


def scores(examples: list[Example], model) -> np.ndarray:
    x = np.array([e.x if e.x is not None else [0.0] * len(FEATURES) for e in examples])
    return np.where([e.x is not None for e in examples], model.predict_proba(x)[:, 1], -1.0)


def exported(model: HistGradientBoostingClassifier, threshold: float, vectors: Vectors) -> Reader:
    """The trees as flat node arrays (spg.lint.meaning.reader.Reader), each tree's nodes after the ones before."""
    roots, feature, split, left, right, value = [], [], [], [], [], []
    for (tree,) in model._predictors:  # noqa: SLF001 - the fitted trees; scikit-learn has no public export
        base = len(feature)
        roots.append(base)
        for node in tree.nodes:
            leaf = bool(node["is_leaf"])
            feature.append(int(node["feature_idx"]))
            split.append(float(node["num_threshold"]))
            left.append(-1 if leaf else base + int(node["left"]))
            right.append(-1 if leaf else base + int(node["right"]))
            value.append(float(node["value"]))
    bias = float(np.ravel(model._baseline_prediction)[0])  # noqa: SLF001
    return Reader(tuple(roots), tuple(feature), tuple(split), tuple(left), tuple(right), tuple(value), bias, threshold,
                  vectors)


def granted_rate(examples, p, threshold, split, kind) -> tuple[int, int]:
    """(the reader's findings, claims) on one side's granted claims of one kind."""
    on = [(e, s) for e, s in zip(examples, p) if e.split == split and e.kind == kind]
    claims = sum(e.tags.get("claims", 0) for e, _ in on)
    return sum(s >= threshold and not e.repetition_hit and e.x is not None for e, s in on), claims


def choose_threshold(examples, p, rate: float) -> float:
    """The lowest threshold whose findings on dev US grants and dev EP claims are each at most ``rate`` per claim."""
    threshold = 0.0
    for kind in ("grant", "ep"):
        on = [(e, s) for e, s in zip(examples, p) if e.split == "dev" and e.kind == kind]
        allowed = math.floor(rate * sum(e.tags.get("claims", 0) for e, _ in on))
        eligible = sorted((s for e, s in on if e.x is not None and not e.repetition_hit), reverse=True)
        if len(eligible) > allowed:  # just above the (allowed + 1)-th highest score
            threshold = max(threshold, float(np.nextafter(eligible[allowed], 2.0)))
    return threshold


def train(examples, settings, rate, granted_mass):
    """(model, threshold, setting): the setting (learning rate, rounds) whose scores rank the dev side's labelled
    claims that no repetition rule flags best (average precision), its threshold from :func:`choose_threshold`."""
    dev = [e for e in examples if e.split == "dev" and e.label is not None and e.x is not None and not e.repetition_hit]
    best = None
    for setting in settings:
        model = fit(examples, *setting, granted_mass)
        ap = average_precision_score([e.label for e in dev], scores(dev, model))
        print(f"  learning rate {setting[0]}, {setting[1]} trees: dev average precision {ap:.4f} "
              f"({sum(e.label for e in dev)} restatements the rules miss among {len(dev)} dev claims)")
        if best is None or ap > best[0]:
            best = (ap, model, setting)
    _, model, setting = best
    return model, choose_threshold(examples, scores(examples, model), rate), setting


def _share(hit, n) -> str:
    return f"{hit}/{n} ({hit / n:.0%})" if n else "0/0"


def measure(examples, p, t, split: str, label: str) -> dict:
    """Rules alone against rules with the reader on one side: LLM items per generator, written sets, granted."""
    print(f"{label}, {split} side (threshold {t:.3f})")
    report: dict = {}
    groups: dict[str, list] = defaultdict(list)
    for e, s in zip(examples, p):
        if e.split == split and e.kind in ("llm", "written"):
            for key in (["llm: all", f"llm: {e.source}"] if e.kind == "llm" else [f"written: {e.source}"]):
                groups[key].append((e, s >= t))
    print("  group | repetition found: rules; with the reader; reader alone | error-free flagged: rules; with reader")
    for key in sorted(groups, key=lambda k: (not k.endswith(": all"), k)):
        rep = [(e, r) for e, r in groups[key] if e.label == 1]
        free = [(e, r) for e, r in groups[key] if e.error_free]
        row = {"repetition": len(rep), "rules": sum(e.repetition_hit for e, _ in rep),
               "with_reader": sum(e.repetition_hit or r for e, r in rep), "reader_alone": sum(r for _, r in rep),
               "error_free": len(free), "flagged_rules": sum(e.flagged for e, _ in free),
               "flagged_with_reader": sum(e.flagged or r for e, r in free)}
        report[key] = row
        print(f"  {key} | {_share(row['rules'], row['repetition'])}; {_share(row['with_reader'], row['repetition'])};"
              f" {_share(row['reader_alone'], row['repetition'])} | {_share(row['flagged_rules'], row['error_free'])};"
              f" {_share(row['flagged_with_reader'], row['error_free'])}")
    for kind in ("grant", "ep", "application", "pap2pat"):
        mine, claims = granted_rate(examples, p, t, split, kind)
        rules = sum(e.repetition_hit for e in examples if e.split == split and e.kind == kind)
        report[f"granted: {kind}"] = {"reader": mine, "rules": rules, "claims": claims}
        if claims:
            print(f"  {kind} claims: reader's findings {mine}/{claims} ({mine / claims:.4f} per claim); "
                  f"repetition rules {rules} ({rules / claims:.4f})")
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--llm", nargs=3, action="append", type=Path, metavar=("ITEMS", "SHEET_A", "SHEET_B"),
                    help="labelled LLM items and two blind sheets (repeatable; default: the committed corpus, its first three labelled batches, those the shipped reader learnt from)")
    ap.add_argument("--work", type=Path, default=Path("runs/restatement-reader"), help="cache of the static vectors")
    ap.add_argument("--dims", type=int, default=64, help="PCA dimensions of the static vectors (default 64)")
    ap.add_argument("--written-weight", type=float, default=0.2, help="weight of a written next claim (default 0.2)")
    ap.add_argument("--granted-mass", type=float, default=1.0,
                    help="the clean granted claims' total weight against the labelled items' (default 1)")
    ap.add_argument("--granted-rate", type=float, default=0.005,
                    help="findings per dev US grant and EP claim the threshold allows (default 0.005)")
    ap.add_argument("--settings", nargs="+", default=["0.05:100", "0.05:300", "0.1:100", "0.1:300"],
                    metavar="RATE:TREES", help="boosting settings tried on dev (default: %(default)s)")
    ap.add_argument("--held-out", action="store_true", help="also train without each generator family, test on it")
    ap.add_argument("--out", type=Path, help=f"write the model here (the shipped one: {DIRECTORY})")
    ap.add_argument("--report", type=Path, help="write the figures as JSON here")
    args = ap.parse_args()
    corpora = args.llm or [(ITEMS, SETS / f"llm_claims{batch}_labels_1.jsonl", SETS / f"llm_claims{batch}_labels_2.jsonl")
                           for batch in ("", "_batch2", "_batch3")]  # the shipped reader's batches
    pieces, table = piece_vectors(args.work, 128)
    # what ships is float16: train on exactly that
    vectors = Vectors(pieces, table[:, : args.dims].astype(np.float16))
    examples = llm_examples(corpora, vectors) + written_examples(args.written_weight, vectors) + granted_examples(vectors)
    counts = Counter((e.kind, e.split, e.label) for e in examples if e.x is not None)
    print("examples read (kind, side, label):", dict(sorted(counts.items(), key=str)))
    settings = [(float(r), int(n)) for r, n in (x.split(":") for x in args.settings)]
    model, t, setting = train(examples, settings, args.granted_rate, args.granted_mass)
    p = scores(examples, model)
    reader = exported(model, t, vectors)
    readable = [e.x for e in examples if e.x is not None][:2000]
    assert np.allclose([reader.probability(x) for x in readable], model.predict_proba(np.array(readable))[:, 1])
    report = {"setting": setting, "threshold": t, "dev": measure(examples, p, t, "dev", "all generators"),
              "test": measure(examples, p, t, "test", "all generators")}
    if args.held_out:
        for held in sorted({family(e.source) for e in examples if e.kind == "llm" and e.label == 1}):
            kept = [e for e in examples if not (e.kind == "llm" and family(e.source) == held and e.split != "test")]
            m, th, _ = train(kept, [setting], args.granted_rate, args.granted_mass)
            on = [e for e in kept if e.kind != "llm" or family(e.source) == held]
            report[f"held out: {held}"] = measure(on, scores(on, m), th, "test", f"trained without {held}")
    if args.out:
        reader.save(args.out)
        print(f"reader -> {args.out}")
    if args.report:
        args.report.write_text(json.dumps(report, indent=1, default=int) + "\n", encoding="utf-8")



if __name__ == "__main__":
    sys.exit(main())
