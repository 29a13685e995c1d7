"""Why ``cache_implementation: auto`` is dynamic where the decoding step is not compiled.

transformers sizes each ``generate`` call's static KV cache to the longest prompt of any earlier call (so that a
compiled step is never re-traced). Without compilation that only costs: a batch of short prompts decoded after a
batch of long ones attends over the long batch's cache. This times, on one model in one process, a short batch
with a fresh static cache, then a long batch, then the short batch again (its static cache now the long one's),
and the short batch with a dynamic cache (what ``auto`` gives where nothing is compiled).

    python benchmarks/static_cache_sizing.py --long-tokens 4096 --short-tokens 200 --new-tokens 48
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

# benchmarks/ for common.py (the shared data folder), the repository for spg.
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2])]

import torch  # noqa: E402
from common import shared_file  # noqa: E402

from spg.data import load_records  # noqa: E402
from spg.generation.generator import load_generator  # noqa: E402
from spg.generation.pointer_decode import DecodeSettings, generate_batch  # noqa: E402
from spg.generation.request import DecodeRequest  # noqa: E402
from spg.generation.runner import Document  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="spg-smollm2")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--long-tokens", type=int, default=4096)
    parser.add_argument("--short-tokens", type=int, default=200)
    parser.add_argument("--new-tokens", type=int, default=48)
    args = parser.parse_args()

    static = DecodeSettings(max_new_tokens=args.new_tokens, do_sample=False, cache_implementation="static")
    generator = load_generator(args.model, static, max_prompt_tokens=args.long_tokens, device=args.device)
    records = list(load_records([str(shared_file("uspto/patents.jsonl"))]))[: 2 * args.batch]
    prompts = [generator.prompt(Document(r.id, r.description)) for r in records]
    short, long = [p[: args.short_tokens] for p in prompts[: args.batch]], prompts[args.batch :]

    def timed(batch: list[list[int]], settings: DecodeSettings) -> float:
        start = time.perf_counter()
        generate_batch(DecodeRequest(generator.lm, generator.tokenizer, batch, settings, tagged=True, spg=generator.spg,
                                     grammar=generator.grammar))
        if args.device.startswith("cuda"):
            torch.cuda.synchronize()
        return time.perf_counter() - start

    dynamic = replace(static, cache_implementation="dynamic")
    rows = [
        ("short, static cache, first call", timed(short, static)),
        ("short, static cache, again", timed(short, static)),
        (f"long ({max(map(len, long))} tokens), static cache", timed(long, static)),
        ("short after long, static cache", timed(short, static)),
        ("short after long, static cache, again", timed(short, static)),
        ("short, dynamic cache", timed(short, dynamic)),
        ("short, dynamic cache, again", timed(short, dynamic)),
    ]
    print(f"{args.model} on {args.device}, {torch.get_num_threads()} threads; batch {args.batch}, short prompts "
          f"{args.short_tokens} tokens, {args.new_tokens} new tokens, greedy")
    for name, seconds in rows:
        print(f"  {name}: {seconds:.1f} s")


if __name__ == "__main__":
    main()
