"""Has an SPG model learnt *when* to stop? Teacher-forced P(<eot>) after every closing tag of gold claim sets.

A model that knows when a claim set is complete puts <eot>'s probability mass at the gold end and little
elsewhere; one that has learnt only how often claim sets end gives the same probability at every boundary, and
near-greedy decoding then never stops it (docs/reproduction.md, finding 3).

    python benchmarks/stop_probability.py --model spg-smollm2 --docs 20
"""

from __future__ import annotations

import argparse
import statistics
import sys
from itertools import islice
from pathlib import Path

import torch

# benchmarks/ for common.py (the shared data folder), the repository for spg.
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2])]

from common import shared_file  # noqa: E402

from spg.data import load_records  # noqa: E402
from spg.linearize import DEP_END, EOT, IND_END  # noqa: E402
from spg.model.backbone import resolve_device  # noqa: E402
from spg.model.spg_model import SPGModel  # noqa: E402

DATA = ("uspto/patents.jsonl", "pap2pat/patents.jsonl.gz")  # in $SPG_DATA_DIR (benchmarks/common.py)


@torch.inference_mode()
def boundary_probabilities(model: SPGModel, record) -> tuple[list[float], float | None]:
    """P(<eot>) after each closing tag but the last, and at the gold end (None if the target kept no <eot>)."""
    tokenizer = model.tokenizer
    example = model.example(record.description, record.claims)
    ids = example["input_ids"]
    eot = tokenizer.convert_tokens_to_ids(EOT)
    closes = {tokenizer.convert_tokens_to_ids(IND_END), tokenizer.convert_tokens_to_ids(DEP_END)}
    probs = model.lm(input_ids=torch.tensor([ids], device=model.lm.device)).logits[0].float().softmax(-1)[:, eot]
    boundaries = [i for i, t in enumerate(ids[:-1]) if t in closes]
    at_end = probs[boundaries[-1]].item() if boundaries and ids[boundaries[-1] + 1] == eot else None
    inside = [probs[i].item() for i in boundaries if ids[i + 1] != eot]
    return inside, at_end


def summary(values: list[float]) -> str:
    if not values:
        return "none"
    return f"mean {statistics.mean(values):.3f}, median {statistics.median(values):.3f} over {len(values)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="spg-smollm2", help="SPG artefact dir or shipped name (tagged)")
    parser.add_argument("--data", nargs="+", help="data sources (default: the shared USPTO and Pap2Pat sets)")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--docs", type=int, default=20)
    parser.add_argument("--device", help="default: cuda when available, else cpu")
    args = parser.parse_args()
    data = args.data or [str(shared_file(name)) for name in DATA]
    model = SPGModel.from_pretrained(args.model).to(resolve_device(args.device)).eval()
    inside, ends = [], []
    for record in islice((r for r in load_records(data, split=args.split) if r.claims.roots), args.docs):
        probs, at_end = boundary_probabilities(model, record)
        inside += probs
        ends += [at_end] if at_end is not None else []
    print(f"P(<eot>) at the gold end of the claim set: {summary(ends)}")
    print(f"P(<eot>) after every other closing tag:    {summary(inside)}")


if __name__ == "__main__":
    main()
