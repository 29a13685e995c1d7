"""CPU decoding of the main job: a runtime (``--runtime``, default onnx) vs plain float32 ``generate`` vs the memory bound.

In one run, on real USPTO descriptions (``$SPG_DATA_DIR/uspto/patents.jsonl``, truncated to ``--max-prompt-tokens``)
and the shipped SPG model:

* the memory-bandwidth bound: a numpy sum over a 1 GiB buffer gives the bytes/s one thread reads; reading the
  float32 weights once per step at that rate is the fastest a float32 step can be (KV-cache reads ignored);
* load time of each runtime (``runtime: torch``, the float32 PyTorch path, and ``--runtime``);
* decoding tokens/s at batch 1 (the main job's document) and each ``--batch-sizes``: ``plain fp32`` is
  transformers' ``generate`` on the float32 PyTorch model (greedy, no processors, no drafts: the reference); ``spg``
  is spg's own path with ``--runtime`` and default settings (grammar, loop control, pointer states, sampling at
  T = 0.1, prompt lookup where a batch holds one document); ``spg, no drafts`` is the same with
  ``prompt_lookup_tokens: 0``. Prefill is timed apart (a 1-token run of the same prompts) and subtracted, so the rates
  are decoding rates. The contenders alternate ``--repeats`` times; min–max is printed (the machine may be shared);
  the tokens each forward of spg's path kept are counted alongside;
* greedy agreement: for each of ``--docs`` documents, the first ``--new-tokens`` greedy tokens of ``--runtime`` with
  its default drafts against float32 PyTorch's without, unconstrained and on spg's constrained path: positions
  identical, first difference; and spg's default (sampled) outputs with drafts against the same without drafts.

    python benchmarks/cpu_decoding.py                                  # 10 documents, 256 tokens (issue 23)
    python benchmarks/cpu_decoding.py --docs 3 --new-tokens 64         # a quicker look
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import REPO, shared_file  # noqa: E402

from spg.generation.config import GenerateConfig  # noqa: E402
from spg.generation.generator import ClaimGenerator, load_generator  # noqa: E402
from spg.generation.pointer_decode import DecodeSettings, generate_batch  # noqa: E402
from spg.generation.runner import Document  # noqa: E402


def bandwidth() -> float:
    """Bytes/s of a numpy sum over 1 GiB (best of three)."""
    buffer = np.ones(2**28, dtype=np.float32)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        buffer.sum()
        best = min(best, time.perf_counter() - start)
    return buffer.nbytes / best


def documents(count: int) -> list[Document]:
    """The first ``count`` USPTO records with a description (truncated to ``--max-prompt-tokens`` by the prompt)."""
    docs = []
    with shared_file("uspto/patents.jsonl").open(encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if record.get("description"):
                docs.append(Document(record["id"], record["description"]))
            if len(docs) == count:
                break
    return docs


def timed(generator: ClaimGenerator, prompts: list[list[int]], settings: DecodeSettings, spg_path: bool):
    """(seconds, new tokens, outputs, forwards) of one generation over ``prompts`` as one batch."""
    extra = dict(tagged=True, spg=generator.spg, grammar=generator.grammar) if spg_path else dict(tagged=False)
    forwards = []
    hook = generator.lm.get_output_embeddings().register_forward_pre_hook(lambda *_: forwards.append(1))
    torch.manual_seed(0)
    start = time.perf_counter()
    outputs = generate_batch(generator.lm, generator.tokenizer, prompts, settings, **extra)
    seconds = time.perf_counter() - start
    hook.remove()
    return seconds, sum(len(o.ids) for o in outputs), outputs, len(forwards)


def decode_rate(generator: ClaimGenerator, prompts: list[list[int]], settings: DecodeSettings, spg_path: bool):
    """Decoding tokens/s (prefill subtracted) and new tokens per forward after the prefill."""
    # the prompt's forward plus one token, without the grammar (which needs room for a whole forest)
    prefill = timed(generator, prompts, dataclasses.replace(settings, max_new_tokens=1, min_new_tokens=0), False)[0]
    seconds, tokens, _, forwards = timed(generator, prompts, settings, spg_path)
    steps = max(forwards - (len(prompts) if getattr(generator.lm, "rows_per_call", None) == 1 else 1), 1)
    return (tokens - len(prompts)) / max(seconds - prefill, 1e-9), (tokens - len(prompts)) / steps


def agreement(fast: ClaimGenerator, fast_settings: DecodeSettings, reference: ClaimGenerator,
              reference_settings: DecodeSettings, prompts: list[list[int]], spg_path: bool):
    """Per document: (positions identical, positions compared, first differing position or None)."""
    rows = []
    for prompt in prompts:
        ours = timed(fast, [prompt], fast_settings, spg_path)[2][0].ids
        theirs = timed(reference, [prompt], reference_settings, spg_path)[2][0].ids
        same = sum(a == b for a, b in zip(ours, theirs))
        first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), None)
        rows.append((same, min(len(ours), len(theirs)), first))
    return rows


def report(what: str, rows: list[tuple[int, int, int | None]], new_tokens: int) -> None:
    same, total = sum(r[0] for r in rows), sum(r[1] for r in rows)
    print(f"{what} over {len(rows)} documents, first {new_tokens} tokens: {same}/{total} positions identical "
          f"({100 * same / max(total, 1):.1f}%); first difference per document: {[r[2] for r in rows]} (None: identical)")


def span(values: list[float]) -> str:
    return f"{min(values):.1f}–{max(values):.1f}" if len(values) > 1 else f"{values[0]:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="spg-smollm2")
    parser.add_argument("--runtime", default="onnx", help="the contender against float32 torch (spg's runtime key)")
    parser.add_argument("--docs", type=int, default=10, help="documents for the agreement figure")
    parser.add_argument("--new-tokens", type=int, default=256)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 4], help="batches of USPTO documents")
    parser.add_argument("--max-prompt-tokens", type=int, default=1024, help="descriptions truncated to fit (prefill time)")
    parser.add_argument("--repeats", type=int, default=2, help="timed runs per contender, alternating")
    args = parser.parse_args()
    torch.manual_seed(0)

    config = GenerateConfig.load(flags=[("--model", "model", args.model), ("--new-tokens", "max_new_tokens", args.new_tokens)])
    loads, generators = {}, {}
    for runtime in ("torch", args.runtime):
        start = time.perf_counter()
        settings = dataclasses.replace(config.decode, runtime=runtime)
        generators[runtime] = load_generator(args.model, settings, constrained=config.constrained, device="cpu",
                                             max_prompt_tokens=args.max_prompt_tokens)
        loads[runtime] = time.perf_counter() - start
    reference, fast = generators["torch"], generators[args.runtime]
    docs = documents(max(args.docs, *args.batch_sizes))
    prompts = [reference.prompt(d) for d in docs]
    example = REPO / "spg" / "examples" / "folding_step_stool.txt"  # the main job's document
    main_job = [reference.prompt(Document(example.stem, example.read_text(encoding="utf-8")))]

    rate = bandwidth()
    weights = sum(p.numel() * p.element_size() for p in reference.lm.parameters())
    print(f"memory bandwidth (numpy sum of 1 GiB): {rate / 1e9:.1f} GB/s; float32 weights {weights / 1e6:.0f} MB; "
          f"bound {rate / weights:.1f} tokens/s at batch 1")
    for runtime, seconds in loads.items():
        print(f"load {runtime}: {seconds:.1f} s (ready forms and export cached)")

    greedy = DecodeSettings(max_new_tokens=args.new_tokens, min_new_tokens=args.new_tokens, do_sample=False)
    undrafted = dataclasses.replace(fast.settings, prompt_lookup_tokens=0)
    for batch, rows in [("1, main job", main_job), *((b, prompts[:b]) for b in args.batch_sizes)]:
        plain, ours, bare, kept, ratios, bare_ratios = [], [], [], [], [], []
        for _ in range(args.repeats):  # alternating, so that a load change on the shared machine hits all three
            plain.append(decode_rate(reference, rows, dataclasses.replace(greedy, prompt_lookup_tokens=0), False)[0])
            rate, per_forward = decode_rate(fast, rows, fast.settings, spg_path=True)
            ours.append(rate)
            kept.append(per_forward)
            bare.append(decode_rate(fast, rows, undrafted, spg_path=True)[0])
            ratios.append(ours[-1] / plain[-1])
            bare_ratios.append(bare[-1] / plain[-1])
        print(f"batch {batch} ({sum(map(len, rows))} prompt tokens), decoding tokens/s over {args.repeats} runs: "
              f"plain fp32 generate {span(plain)}; spg generate ({args.runtime}, default settings) {span(ours)}, "
              f"ratio {span(ratios)}x, {span(kept)} tokens kept per forward; spg, no drafts {span(bare)}, ratio "
              f"{span(bare_ratios)}x")

    constrained = dataclasses.replace(fast.settings, do_sample=False)
    for name, settings, spg_path in [("unconstrained", greedy, False), ("spg constrained", constrained, True)]:
        rows = agreement(fast, settings, reference, dataclasses.replace(settings, prompt_lookup_tokens=0),
                         prompts[: args.docs], spg_path)
        report(f"greedy agreement with float32 torch without drafts ({name})", rows, args.new_tokens)
    rows = agreement(fast, fast.settings, fast, undrafted, prompts[: args.docs], True)
    report(f"spg's default sampled outputs ({args.runtime}) with drafts against without", rows, args.new_tokens)


if __name__ == "__main__":
    main()
