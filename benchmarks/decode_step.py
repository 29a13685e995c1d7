"""Where a batched decoding step's time goes on the CPU, and what batching buys there (issue 41), in one run.

The shipped model (or ``--model``) on the CPU, with its own decoding settings (grammar, loop control, the pointer's
states, the checker in the loop), greedy as issue 41's figures are (``--sampled``: the model's sampling at T = 0.1), on
the first granted US documents of the shared USPTO set's
``checker_split`` test side, prompts cut to ``--max-prompt-tokens``:

* for each of ``--batch-sizes`` (16 and 64): one batch decoded by ``generate_batch`` (what ``spg generate
  --batch-size N`` runs for a batch) under spg.generation.step_profile: the forward's time per decoding step, the
  time per step spent outside the forward (logits processors, the pointer's state copy, the checker and its redraws'
  bookkeeping, transformers' loop: everything but forwards, over the decoding steps), its share of the forward's,
  and the reads of device values by the host per step (the stop check apart) with who made them. The checker's
  redraws run forwards too: they count as forwards, their prompts apart;
* batch 1 against ``--ratio-batch`` (8) on the same ``--ratio-docs`` documents, alternated ``--repeats`` times: new
  tokens per second of the whole decode (prompts, checker and redraws included, as ``spg generate`` prints it), and
  the ratio (target ≥ 1.5). ``--runtime`` picks the runtime (default ``auto``: ONNX Runtime on a float32 CPU for the
  shipped model; ``torch`` is what ``auto`` took for batches before issue 41).

    python benchmarks/decode_step.py                                   # batch 16 and 64, then 1 against 8
    python benchmarks/decode_step.py --batch-sizes 16 --new-tokens 32 --ratio-docs 0   # a quicker look
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import shared_file  # noqa: E402

from spg.data import checker_split  # noqa: E402
from spg.generation.config import GenerateConfig  # noqa: E402
from spg.generation.generator import ClaimGenerator, load_generator  # noqa: E402
from spg.generation.pointer_decode import generate_batch  # noqa: E402
from spg.generation.request import DecodeRequest  # noqa: E402
from spg.generation.runner import Document  # noqa: E402
from spg.generation.step_profile import StepProfile, profiled  # noqa: E402

STOP_CHECK = "transformers/generation/utils.py:__call__"  # StopCheck.__call__: "have all rows stopped?"


def documents(count: int) -> list[Document]:
    """The first ``count`` granted US documents of the checker_split test side with a description."""
    docs = []
    with shared_file("uspto/patents.jsonl").open(encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if record.get("kind") == "grant" and record.get("description") and checker_split(record["id"]) == "test":
                docs.append(Document(record["id"], record["description"]))
            if len(docs) == count:
                break
    return docs


def decode(generator: ClaimGenerator, prompts: list[list[int]]) -> tuple[StepProfile, int]:
    """One batch through ``generate_batch`` under the profile: (profile, new tokens)."""
    torch.manual_seed(0)
    with profiled(generator.lm) as profile:
        outputs = generate_batch(DecodeRequest(generator.lm, generator.tokenizer, prompts, generator.settings, tagged=True,
                                              spg=generator.spg, grammar=generator.grammar, check=generator.check))
    return profile, sum(len(o.ids) for o in outputs)


def step_report(batch: int, profile: StepProfile, tokens: int) -> None:
    steps = max(profile.steps, 1)
    forward, host = profile.step_seconds / steps, profile.host_seconds / steps
    reads = dict(profile.reads)
    stop = reads.pop(STOP_CHECK, 0)
    others = ", ".join(f"{caller} {count}" for caller, count in sorted(reads.items(), key=lambda kv: -kv[1]))
    print(f"batch {batch}: {tokens} new tokens in {profile.seconds:.1f} s, {profile.steps} decoding steps "
          f"({profile.prefills} prompt runs, {profile.forward_seconds - profile.step_seconds:.1f} s)")
    print(f"  per step: forward {1000 * forward:.1f} ms, outside the forward {1000 * host:.1f} ms "
          f"= {100 * host / max(forward, 1e-9):.1f} % of the forward's (target at batch 64: <= 10 %)")
    print(f"  host reads of device values per step: stop check {stop / steps:.2f}, others {sum(reads.values()) / steps:.2f}"
          f" ({sum(reads.values())} in the call: {others or 'none'})")


def ratio(generator: ClaimGenerator, prompts: list[list[int]], batch: int, repeats: int) -> None:
    rates: dict[int, list[float]] = {1: [], batch: []}
    for _ in range(repeats):
        for size in rates:
            start, tokens = time.perf_counter(), 0
            for first in range(0, len(prompts), size):
                tokens += decode(generator, prompts[first : first + size])[1]
            rates[size].append(tokens / (time.perf_counter() - start))
    one, many = statistics.median(rates[1]), statistics.median(rates[batch])
    print(f"{len(prompts)} documents ({sum(map(len, prompts))} prompt tokens), new tokens/s over {repeats} alternated "
          f"runs: batch 1 {', '.join(f'{r:.1f}' for r in rates[1])}; batch {batch} "
          f"{', '.join(f'{r:.1f}' for r in rates[batch])}; ratio of medians {many / one:.2f} (target >= 1.5)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="spg-smollm2", help="SPG artefact or shipped name (default spg-smollm2)")
    parser.add_argument("--runtime", default="auto", choices=("auto", "torch", "onnx"), help="config key runtime")
    parser.add_argument("--batch-sizes", type=int, nargs="*", default=[16, 64], help="batches profiled (16 64)")
    parser.add_argument("--new-tokens", type=int, default=64, help="new tokens per row of the profiled batches (64)")
    parser.add_argument("--max-prompt-tokens", type=int, default=512, help="prompts cut to this many tokens (512)")
    parser.add_argument("--ratio-docs", type=int, default=8, help="documents of the batch-1 comparison (8; 0: skip)")
    parser.add_argument("--ratio-batch", type=int, default=8, help="the batch compared with batch 1 (8)")
    parser.add_argument("--ratio-new-tokens", type=int, default=96, help="new tokens per row there (96)")
    parser.add_argument("--repeats", type=int, default=2, help="alternated runs of the comparison (2)")
    parser.add_argument("--sampled", action="store_true", help="the model's sampling at T = 0.1 instead of greedy")
    parser.add_argument("--device", default="cpu", help="cpu (default), or cuda: benchmarks/decode_gpu.sh runs it")
    args = parser.parse_args()

    config = GenerateConfig.load(flags=[("--model", "model", args.model)])
    settings = dataclasses.replace(config.decode, runtime=args.runtime, max_new_tokens=args.new_tokens,
                                   do_sample=config.decode.do_sample and args.sampled)
    generator = load_generator(args.model, settings, constrained=config.constrained, device=args.device,
                               max_prompt_tokens=args.max_prompt_tokens)
    drawn = f"sampled at T = {settings.temperature:g}" if settings.do_sample else "greedy"
    print(f"{args.model} on {type(generator.lm).__name__}, {args.device} ({torch.get_num_threads()} torch threads), prompts cut to "
          f"{args.max_prompt_tokens} tokens, checker {'on' if settings.redraws else 'off'}, {drawn}")
    docs = documents(max([*args.batch_sizes, args.ratio_docs]))
    prompts = [generator.prompt(d) for d in docs]
    decode(generator, prompts[:2])  # warm-up: first calls pay one-off costs (token tables, allocations)
    for batch in args.batch_sizes:
        step_report(batch, *decode(generator, prompts[:batch]))
    if args.ratio_docs:
        generator.settings = dataclasses.replace(settings, max_new_tokens=args.ratio_new_tokens)
        ratio(generator, prompts[: args.ratio_docs], args.ratio_batch, args.repeats)


if __name__ == "__main__":
    main()
