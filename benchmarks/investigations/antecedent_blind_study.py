"""Can a reader tell the benchmark's injected antecedent defects from the analysis's warnings on real claims?

Builds a blind sample for people (or careful readers) to label with the rubric in docs/lint-antecedent.md: warnings of
today's analysis (spg.lint.antecedent) on the shared USPTO set and defects injected by benchmarks/lint_antecedent.py's
mutations (an introduction made definite, its head or modifier swapped, its list item deleted), shuffled and shown
alike, each with its own claim set (mutated where it was injected) and no message from the tool. The key that says
which is which goes to a separate file. Then scores labels against the key: the share judged real of each origin,
and agreement between labellers.

    python benchmarks/investigations/antecedent_blind_study.py build --out DIR --key KEY.jsonl [--natural 50]
        [--injected 50] [--seed 11]
    python benchmarks/investigations/antecedent_blind_study.py docs --out DIR --key KEY.jsonl   # claim sets again
    python benchmarks/investigations/antecedent_blind_study.py score --key KEY.jsonl LABELS.jsonl [LABELS.jsonl …]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lint_antecedent import kind, load, mutate, sites  # noqa: E402

from spg.forest import Forest  # noqa: E402
from spg.lint.antecedent import check_antecedents  # noqa: E402
from spg.parse import parse_claims  # noqa: E402


def claim_set(doc: dict, key: dict) -> Forest:
    """The claim set an item is read in: the document's own, or with the key's defect injected."""
    forest = parse_claims(doc["claims"])
    if key["origin"] == "natural":
        return forest
    doc_text = " ".join(c.text for c in forest.claims).lower()
    return mutate(forest, tuple(key["site"]), key["how"], doc_text)[0]


def write_docs(out: Path, keys: list[dict], docs: dict[str, dict]) -> None:
    (out / "docs").mkdir(parents=True, exist_ok=True)
    for key in keys:
        forest = claim_set(docs[key["doc"]], key)
        lines = [f"# {key['item']}: a claim set ({key['kind']}) as parsed; 'depends on' = the claims it cites", ""]
        for c in forest.claims:
            cited = f"depends on {', '.join(map(str, c.parents))}" if c.parents else "independent"
            lines += [f"[{c.num}] ({cited})", c.text, ""]
        (out / "docs" / f"{key['item']}.txt").write_text("\n".join(lines), encoding="utf-8")


def build(args: argparse.Namespace) -> None:
    docs = load("uspto/patents.jsonl")
    rng = random.Random(args.seed)
    natural, injected = [], []
    for doc in docs:
        forest = parse_claims(doc["claims"])
        natural += [(doc, "natural", None, None, f.claim, f.start, f.end) for f in check_antecedents(forest)]
        doc_text = " ".join(c.text for c in forest.claims).lower()
        for how in "abcd":
            for site in sites(forest, swap=how == "d"):
                got = mutate(forest, site, how, doc_text)
                if got is not None:
                    injected.append((doc, "injected", how, site, *got[1:]))
    items = rng.sample(natural, args.natural) + rng.sample(injected, args.injected)
    rng.shuffle(items)
    keys, shown = [], []
    for n, (doc, origin, how, site, claim, start, end) in enumerate(items):
        key = {"item": f"item{n:03d}", "origin": origin, "how": how, "site": site, "doc": doc["id"], "kind": kind(doc)}
        text = claim_set(doc, key).by_num[claim].text
        keys.append(key)
        shown.append({"item": key["item"], "kind": key["kind"], "claim": claim, "start": start,
                      "term": text[start:end], "context": f"{text[max(0, start - 80):start]}[[{text[start:end]}]]"
                                                          f"{text[end:end + 60]}"})
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "items.jsonl").write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in shown), "utf-8")
    args.key.write_text("".join(json.dumps(k) + "\n" for k in keys), encoding="utf-8")
    write_docs(args.out, keys, {d["id"]: d for d in docs})
    print(f"{len(shown)} items in {args.out} ({args.natural} natural, {args.injected} injected); key in {args.key}")


def score(args: argparse.Namespace) -> None:
    keys = {k["item"]: k for k in map(json.loads, args.key.read_text(encoding="utf-8").splitlines())}
    sets = [{row["item"]: row for row in map(json.loads, p.read_text(encoding="utf-8").splitlines())} for p in args.labels]
    for path, labels in zip(args.labels, sets, strict=True):
        for origin in ("natural", "injected"):
            rows = [v for item, v in labels.items() if keys[item]["origin"] == origin]
            real = sum(v["verdict"] == "real" for v in rows)
            print(f"{path.name}: {origin} {real}/{len(rows)} judged real ({real / max(len(rows), 1):.0%})")
    if len(sets) > 1:
        common = set.intersection(*(set(s) for s in sets))
        agree = [item for item in common if len({s[item]["verdict"] for s in sets}) == 1]
        print(f"all labellers agree on {len(agree)}/{len(common)} items")
        by = Counter((keys[i]["origin"], keys[i]["how"], sets[0][i]["verdict"]) for i in agree)
        for (origin, how, verdict), count in sorted(by.items(), key=str):
            print(f"  agreed {verdict}: {origin}{f' ({how})' if how else ''} {count}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    made = sub.add_parser("build", help="draw the blind sample")
    made.add_argument("--out", type=Path, required=True, help="folder for items.jsonl and docs/")
    made.add_argument("--key", type=Path, required=True, help="where the key goes (keep it from the labellers)")
    made.add_argument("--natural", type=int, default=50)
    made.add_argument("--injected", type=int, default=50)
    made.add_argument("--seed", type=int, default=11)
    again = sub.add_parser("docs", help="write the items' claim sets again from the key")
    again.add_argument("--out", type=Path, required=True)
    again.add_argument("--key", type=Path, required=True)
    scored = sub.add_parser("score", help="score labels against the key")
    scored.add_argument("--key", type=Path, required=True)
    scored.add_argument("labels", type=Path, nargs="+")
    args = parser.parse_args()
    if args.command == "build":
        build(args)
    elif args.command == "docs":
        keys = [json.loads(line) for line in args.key.read_text(encoding="utf-8").splitlines()]
        write_docs(args.out, keys, {d["id"]: d for d in load("uspto/patents.jsonl")})
    else:
        score(args)


if __name__ == "__main__":
    main()
