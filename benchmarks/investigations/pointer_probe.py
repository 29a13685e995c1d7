"""Do a trained model's hidden states hold the parent? A probe of the pointer head on frozen states.

Teacher-forced DEA of an SPG model can sit at the always-root level either because the states the pointer
reads carry no information about the parent (a representation problem: the backbone must be shaped) or because
W_dep never learnt to read it (an optimisation problem: its learning rate, steps). This script tells which: it
freezes the model, collects the unit-RMS states at each claim's opening and closing tags on training documents,
fits a fresh W_dep (Eq. 2/3, I/√d init) on them alone with Adam at several learning rates, and reports DEA on dev
documents, beside always-root. The query can be the state at the dependent's own opening ``<dep>`` (the paper's
Eq. 2) or at its closing tag, after its text (and its "of claim N") has been read: an upper bound showing how
much of the parent the model knows once it has written the claim.

    python benchmarks/pointer_probe.py --model spg-smollm2 --train-docs 120 --dev-docs 99
"""

from __future__ import annotations

import argparse
import sys
import time
from itertools import islice
from pathlib import Path

import torch

# benchmarks/ for common.py (the shared data folder), the repository for spg.
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2])]

from common import shared_file  # noqa: E402

from spg.data import load_records  # noqa: E402
from spg.model.backbone import resolve_device  # noqa: E402
from spg.model.batch import Collator  # noqa: E402
from spg.model.norm import unit_rms  # noqa: E402
from spg.model.pointer import PointerHead, candidate_mask, greedy_parents, pointer_logits, structure_loss  # noqa: E402
from spg.model.spg_model import SPGModel  # noqa: E402

DATA = ("uspto/patents.jsonl", "pap2pat/patents.jsonl.gz")  # in $SPG_DATA_DIR (benchmarks/common.py)


@torch.inference_mode()
def claim_states(model: SPGModel, records, batch_size: int = 2) -> list[dict[str, torch.Tensor]]:
    """Per document: unit-RMS states at opening and closing tags, gold parents and trees of the claims it kept."""
    collate, out = Collator(model.tokenizer.pad_token_id), []
    records = [r for r in records if r.claims.num_dependent]
    for start in range(0, len(records), batch_size):
        examples = [model.example(r.description, r.claims) for r in records[start : start + batch_size]]
        batch = {k: v.to(model.lm.device) for k, v in collate(examples).items()}
        opens, closes = batch["claim_open"], batch["claim_close"]
        with model.record_hidden() as states:
            model.lm(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], use_cache=False,
                     logits_to_keep=torch.cat([opens, closes], -1))
        hidden = unit_rms(states[-1].float()).cpu()
        count = opens.shape[-1]
        for row, example in enumerate(examples):
            n = len(example["claim_open"])
            out.append({"open": hidden[row, :n], "close": hidden[row, count : count + n],
                        "parent": torch.tensor(example["claim_parent"]), "tree": torch.tensor(example["claim_tree"])})
        print(f"  states of {min(start + batch_size, len(records))}/{len(records)} documents", file=sys.stderr)
    return out


def batch_of(docs: list[dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """Documents padded to the most claims; the states laid out as [open claims | close claims] positions."""
    width = max(len(d["parent"]) for d in docs)

    def pad(t: torch.Tensor, value: float) -> torch.Tensor:
        return torch.nn.functional.pad(t, (0, 0, 0, width - len(t)) if t.dim() == 2 else (0, width - len(t)),
                                       value=value)

    hidden = torch.stack([torch.cat([pad(d["open"], 0.0), pad(d["close"], 0.0)]) for d in docs])
    real = torch.stack([pad(torch.ones(len(d["parent"])), 0.0) for d in docs]).bool()
    return {
        "hidden": hidden, "parent": torch.stack([pad(d["parent"], -1) for d in docs]).long(),
        "mask": candidate_mask(torch.stack([pad(d["tree"], -1) for d in docs]).long(), real),
        "index": torch.arange(width).expand(len(docs), -1), "width": torch.tensor(width),
    }


def logits(head: PointerHead, batch: dict[str, torch.Tensor], query: str) -> torch.Tensor:
    index, width = batch["index"], int(batch["width"])
    queries = index if query == "open" else index + width
    return pointer_logits(head, batch["hidden"], queries, index + width, batch["mask"])


def dea(head: PointerHead, batch: dict[str, torch.Tensor], query: str) -> dict[str, float]:
    with torch.no_grad():
        predicted = greedy_parents(logits(head, batch, query))
    parents = batch["parent"]
    is_dep = parents >= 0
    # Depth from the gold parents: a claim's depth is its parent's + 1 (parents precede their children).
    depth = torch.ones_like(parents)
    for i in range(parents.shape[1]):
        has = parents[:, i] >= 0
        depth[has, i] = depth[has, parents[has, i]] + 1
    hits = (predicted == parents) & is_dep
    out = {"overall": hits.sum().item() / is_dep.sum().item()}
    for d in (2, 3, 4):
        sel = is_dep & (depth == d)
        out[f"d{d}"] = hits[sel].sum().item() / max(sel.sum().item(), 1)
    return out


def fit(train: dict[str, torch.Tensor], dev: dict[str, torch.Tensor], lr: float, epochs: int, query: str) -> dict:
    head = PointerHead(train["hidden"].shape[-1], "none")  # states are normalised already
    optimizer = torch.optim.Adam(head.parameters(), lr=lr)
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = structure_loss(logits(head, train, query), train["parent"]).mean()
        loss.backward()
        optimizer.step()
    return {"train": dea(head, train, query), "dev": dea(head, dev, query), "loss": loss.item()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="spg-smollm2", help="SPG artefact dir or shipped name")
    parser.add_argument("--data", nargs="+", help="data sources (default: the shared USPTO and Pap2Pat sets)")
    parser.add_argument("--train-docs", type=int, default=120)
    parser.add_argument("--dev-docs", type=int, default=99)
    parser.add_argument("--lrs", type=float, nargs="+", default=[1e-4, 1e-3, 1e-2])
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--device", help="where the model runs (default: cuda when available, else cpu)")
    args = parser.parse_args()
    data = args.data or [str(shared_file(name)) for name in DATA]
    torch.manual_seed(0)
    start = time.time()
    model = SPGModel.from_pretrained(args.model).to(resolve_device(args.device)).eval()
    train_docs = claim_states(model, list(islice(load_records(data, split="train"), args.train_docs)))
    dev_docs = claim_states(model, list(islice(load_records(data, split="dev"), args.dev_docs)))
    train, dev = batch_of(train_docs), batch_of(dev_docs)
    print(f"{len(train_docs)} train / {len(dev_docs)} dev documents with dependents, "
          f"{int((train['parent'] >= 0).sum())} / {int((dev['parent'] >= 0).sum())} dependent claims "
          f"({time.time() - start:.0f} s to collect states)")
    is_dep = dev["parent"] >= 0
    root = float(((dev["parent"] == _root_of(dev)) & is_dep).sum() / is_dep.sum())
    print(f"always the root on dev: {root:.3f}")
    trained = PointerHead(model.pointer.weight.shape[0], "none")
    trained.load_state_dict(model.pointer.state_dict())
    print("model's own W_dep on dev:", {k: round(v, 3) for k, v in dea(trained, dev, "open").items()})
    print("| query | lr | train DEA | dev DEA | dev d2 | dev d3 | dev d4 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for query in ("open", "close"):
        for lr in args.lrs:
            result = fit(train, dev, lr, args.epochs, query)
            d = result["dev"]
            print(f"| {query} | {lr:g} | {result['train']['overall']:.3f} | {d['overall']:.3f} | {d['d2']:.3f} | "
                  f"{d['d3']:.3f} | {d['d4']:.3f} |", flush=True)
    print(f"({time.time() - start:.0f} s in all; W_dep init I/sqrt(d), full-batch Adam, {args.epochs} epochs)")


def _root_of(batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """The root claim index of every claim's tree (its tree's first claim)."""
    parents = batch["parent"]
    root = torch.arange(parents.shape[1]).expand_as(parents).clone()
    for i in range(parents.shape[1]):
        has = parents[:, i] >= 0
        root[has, i] = root[has, parents[has, i]]
    return root


if __name__ == "__main__":
    main()
