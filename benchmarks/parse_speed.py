"""Parsing, linting and evaluation speed against input size: ms per kB from 1 kB to 1 MB (5 MB with
``--max-kb 5120``), ordinary and adversarial inputs.

Linear time shows as a flat row: the same ms per kB at every size. Each input kind is built at every size,
then timed (CPU time, median of ``--repeat`` runs; one run at 1 MB) through ``spg.parse.parse_claims`` and
through everything ``spg lint`` does after reading the file (parse, every check of ``spg.lint``, the
printed lines). The adversarial kinds are those of issue 13 (runs of whitespace where a pattern used to try
every split of them, a claim number of nine digits), those of issue 20 (a parent with ~18,000 children, a chain
~18,000 claims deep whose every claim introduces a term: Forest's children, the indented tree and the
antecedent scopes) and others that stress one part of the parser each.
The last column is the rate at the largest size measured over the 1 kB rate: about 1 for linear time (noise
and caches move it). A kind whose run took over ``--budget-s`` seconds is not tried at the next size ("-"):
that is how a quadratic stage shows, without running for hours.

Evaluation (``spg evaluate --no-bertscore`` on one document whose prediction is the input) is timed on three kinds.

    .venv/bin/python benchmarks/parse_speed.py [--repeat 3] [--max-kb 1024] [--budget-s 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

from common import shared_file

from spg.data import Record
from spg.evaluate import Prediction, System, evaluate
from spg.lint import lint_lines
from spg.parse import parse_claims

SIZES_KB = (1, 10, 100, 1024, 5120)


def corpus_text() -> str:
    """The shared USPTO claim sets as HUPD flat strings, one after the other: what real input looks like."""
    with shared_file("uspto/patents.jsonl").open(encoding="utf-8") as f:
        return "\n".join(r["claims_text"] for r in map(json.loads, f) if isinstance(r.get("claims_text"), str))


def numbered_lines(template: str) -> Callable[[int], str]:
    """Claims one per line from ``template`` ("{n}", "{p}": this claim's number and the one before), to ``size``."""

    def build(size: int) -> str:
        lines, total, n = [], 0, 1
        while total < size:
            line = template.format(n=n, p=max(n - 1, 1)) + "\n"
            lines.append(line)
            total += len(line)
            n += 1
        return "".join(lines)

    return build


def padded(head: str, filler: str, tail: str) -> Callable[[int], str]:
    """``head``, then ``filler`` repeated to ``size`` characters in all, then ``tail``."""
    return lambda size: head + filler * max(0, (size - len(head) - len(tail)) // len(filler)) + tail


def build_kinds(corpus: str) -> dict[str, Callable[[int], str]]:
    return {
        "corpus (USPTO claims_text)": lambda size: (corpus * (size // len(corpus) + 1))[:size],
        "claims one per line (a chain)": numbered_lines("{n}. The widget of claim {p}, wherein the frame is red."),
        "issue 20: every claim cites claim 1": numbered_lines("{n}. The widget of claim 1, wherein the frame is red."),
        "issue 20: a chain, a new term per claim": numbered_lines("{n}. The widget of claim {p}, with a part{n} and the part{p}."),
        "issue: newlines after a claim number": padded(
            "1. A widget comprising a frame.\n2", "\n", "The widget of claim 1.\n"
        ),
        "issue: spaces after 'claim'": padded("1. A widget.\n2. The widget of claim 1, claim", " ", "x"),
        "spaces after a list comma": padded("1. A widget.\n2. The widget of claim 1,", " ", "x"),
        "spaces after a range": padded("1. A widget.\n2. The widget of claims 1 to 2", " ", "x"),
        "spaces before the first claim": padded("Claims", " ", "\n1. A widget.\n2. The widget of claim 1."),
        "digits and periods": padded("", "1. 2. ", ""),
        "'any preceding claim' in every claim": numbered_lines("{n}. The widget of any preceding claim."),
        "'claim N' in every word": padded("1. A widget.\n2. The widget of", " claim 1", "."),
        "issue: claim number 100000000": padded("1. A widget.\n100000000. The widget of claim 1", ",", "."),
    }


# spg evaluate is timed on these kinds only (it is the slowest stage); issue 20 measured one 5 MB prediction at 24 s.
EVALUATED = ("corpus (USPTO claims_text)", "claims one per line (a chain)", "issue 20: every claim cites claim 1")
REFERENCE = Record("d0", "", parse_claims("1. A widget comprising a frame.\n2. The widget of claim 1, wherein the frame is red."))


def evaluate_one(text: str) -> object:
    """Everything ``spg evaluate --no-bertscore`` computes for one document whose prediction is ``text``."""
    system = System("bench", {"d0": Prediction(text)}, "bench")
    return evaluate([system], [REFERENCE], bertscore=False, progress=False)


def cpu_ms(work: Callable[[str], object], text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        work(text)
        times.append(1000 * (time.process_time() - start))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs per input below 1 MB (median reported)")
    parser.add_argument("--max-kb", type=int, default=1024, help="largest input size in kB (5120: the 5 MB row)")
    parser.add_argument("--budget-s", type=float, default=10.0, help="no larger size after a run this long")
    args = parser.parse_args()
    sizes = [kb for kb in SIZES_KB if kb <= args.max_kb]
    kinds = build_kinds(corpus_text())
    stages = {"parse": parse_claims, "lint": lambda text: lint_lines(parse_claims(text)), "evaluate": evaluate_one}
    width = max(map(len, kinds))
    evaluate_one("1. A widget.")  # the metric libraries' imports are not the run's time
    for stage, run in stages.items():
        print(f"\n{stage}: ms per kB (CPU time)")
        print(f"{'input':<{width}} " + " ".join(f"{f'{kb} kB':>9}" for kb in sizes) + "   last/first")
        for name, build in kinds.items():
            if stage == "evaluate" and name not in EVALUATED:
                continue
            rates: list[float] = []
            for kb in sizes:
                text = build(kb * 1024)
                ms = cpu_ms(run, text, 1 if kb >= 1024 else args.repeat)
                rates.append(ms / (len(text) / 1024))
                if ms > 1000 * args.budget_s:
                    break
            cells = [f"{r:>9.3f}" for r in rates] + [f"{'-':>9}"] * (len(sizes) - len(rates))
            print(f"{name:<{width}} " + " ".join(cells) + f"   {rates[-1] / rates[0]:>10.2f}")


if __name__ == "__main__":
    main()
