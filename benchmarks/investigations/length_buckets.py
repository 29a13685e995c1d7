"""What decoding the longest prompts first (``spg generate``'s ``sort_by_length``) saves, on real documents.

Counted, for the shipped model's prompts of the shared corpora, in input order and longest first:

* prompt tokens fed to the model (each batch is left-padded to its longest prompt), and the padded share;
* static-cache lengths a run goes through. transformers sizes each call's static cache to the longest prompt of any
  earlier call plus the new tokens, so every new longest prompt is a new cache shape, and on CUDA a new compilation
  of the decoding step (tens of seconds each; after 8 shapes torch falls back to eager).

With ``--time-docs N``, also the time of ``spg generate``'s loop over the first N documents both ways on this
machine (greedy, alternating, fresh cache sizing each run), and whether the outputs are the same.

    python benchmarks/length_buckets.py --batch 4 8 16
    python benchmarks/length_buckets.py --source pap2pat/patents.jsonl.gz --time-docs 16 --max-prompt-tokens 1024
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# benchmarks/ for common.py (the shared data folder), the repository for spg.
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2])]

import torch  # noqa: E402
from common import shared_file  # noqa: E402

from spg.data import load_records  # noqa: E402
from spg.generation.generator import load_generator  # noqa: E402
from spg.generation.pointer_decode import DecodeSettings  # noqa: E402
from spg.generation.runner import Document, run  # noqa: E402


def fed_tokens(lengths: list[int], batch: int) -> int:
    """Prompt tokens the model reads when batches of ``batch`` consecutive prompts are left-padded to their longest."""
    return sum(max(lengths[i : i + batch]) * len(lengths[i : i + batch]) for i in range(0, len(lengths), batch))


def cache_shapes(lengths: list[int], batch: int) -> int:
    """Distinct static-cache lengths in a run: transformers grows the cache to each new longest batch, never shrinks."""
    shapes, longest = 0, -1
    for i in range(0, len(lengths), batch):
        width = max(lengths[i : i + batch])
        if width > longest:
            shapes, longest = shapes + 1, width
    return shapes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", nargs="+", default=["uspto/patents.jsonl", "pap2pat/patents.jsonl.gz"],
                        help="files under the shared data folder")
    parser.add_argument("--model", default="spg-smollm2")
    parser.add_argument("--max-prompt-tokens", type=int, default=7168, help="prompts are cut to this (paper: 7,168)")
    parser.add_argument("--batch", type=int, nargs="+", default=[4, 8, 16])
    parser.add_argument("--time-docs", type=int, default=0, help="also time generation over the first N documents")
    parser.add_argument("--new-tokens", type=int, default=16, help="new tokens per document in the timed runs")
    args = parser.parse_args()

    records = load_records([str(shared_file(s)) for s in args.source], require_claims=False)
    docs = [Document(r.id, r.description) for r in records if r.description.strip()]
    settings = DecodeSettings(max_new_tokens=args.new_tokens, do_sample=False)
    generator = load_generator(args.model, settings, max_prompt_tokens=args.max_prompt_tokens, device="cpu")
    lengths = [generator.prompt_length(d) for d in docs]
    real = sum(lengths)
    print(f"{len(docs)} documents from {', '.join(args.source)}; prompts cut to {args.max_prompt_tokens} tokens: "
          f"{min(lengths)}-{max(lengths)}, mean {real / len(lengths):.0f}, "
          f"{sum(n == max(lengths) for n in lengths)} at the cap")
    print("| batch | order | prompt tokens fed | padded share | static-cache shapes (compilations on CUDA) |")
    print("|---:|---|---:|---:|---:|")
    for batch in args.batch:
        for order, seq in (("input", lengths), ("longest first", sorted(lengths, reverse=True))):
            fed = fed_tokens(seq, batch)
            print(f"| {batch} | {order} | {fed:,} | {1 - real / fed:.1%} | {cache_shapes(seq, batch)} |")

    if args.time_docs:
        subset = docs[: args.time_docs]
        batch = args.batch[0]
        outputs, seconds = {}, {"input": [], "longest first": []}
        for _ in range(2):
            for order in seconds:
                start = time.perf_counter()
                summary = run(subset, generator, None, batch, progress=False,
                              length=generator.prompt_length if order == "longest first" else None)
                seconds[order].append(time.perf_counter() - start)
                outputs[order] = [(r["raw"], r["pointer_parents"]) for r in summary.results]
        sub = lengths[: args.time_docs]
        print(f"timed on {torch.get_num_threads()} CPU threads: {len(subset)} documents, batch {batch}, "
              f"{args.new_tokens} new tokens each, greedy; prompt tokens fed {fed_tokens(sub, batch):,} (input order) vs "
              f"{fed_tokens(sorted(sub, reverse=True), batch):,} (longest first)")
        for order, times in seconds.items():
            print(f"  {order}: {', '.join(f'{t:.1f} s' for t in times)}")
        ratio = min(seconds["input"]) / min(seconds["longest first"])
        print(f"  speed-up (best of 2 each): {ratio:.2f}x; same outputs: {outputs['input'] == outputs['longest first']}")


if __name__ == "__main__":
    main()
