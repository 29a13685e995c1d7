"""CPU decoding of the main job: a runtime (``--runtime``, default onnx) vs plain float32 ``generate`` vs the memory bound.

In one run, on real USPTO descriptions (``$SPG_DATA_DIR/uspto/patents.jsonl``) and the shipped SPG model:

* the memory-bandwidth bound: a numpy sum over a 1 GiB buffer gives the bytes/s this machine reads; reading the
  float32 weights once per step at that rate is the fastest a float32 step can be (KV-cache reads ignored);
* load time of each runtime (``runtime: torch``, today's float32 path, and ``--runtime``);
* decoding tokens/s at batch 1 and batch 4: ``plain fp32`` is transformers' ``generate`` on the float32 model
  (greedy, no processors: the reference); ``spg (RUNTIME)`` is spg's own path with ``--runtime`` and default settings
  (grammar, loop control off unless the model's settings say so, pointer states, sampling at T = 0.1). Prefill
  is timed apart (a 1-token run of the same prompts) and subtracted, so the rates are decoding rates;
* greedy agreement: for each of ``--docs`` documents, the first ``--new-tokens`` greedy tokens of ``--runtime``
  against float32's (both unconstrained): positions identical, and where each first differs.

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


def documents(count: int, max_chars: int) -> list[Document]:
    """The first ``count`` USPTO records whose description has at most ``max_chars`` characters."""
    docs = []
    with shared_file("uspto/patents.jsonl").open(encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if record.get("description") and len(record["description"]) <= max_chars:
                docs.append(Document(record["id"], record["description"]))
            if len(docs) == count:
                break
    return docs


def timed(generator: ClaimGenerator, prompts: list[list[int]], settings: DecodeSettings, spg_path: bool):
    """(seconds, new tokens, outputs) of one generation over ``prompts`` as one batch."""
    extra = dict(tagged=True, spg=generator.spg, grammar=generator.grammar) if spg_path else dict(tagged=False)
    torch.manual_seed(0)
    start = time.perf_counter()
    outputs = generate_batch(generator.lm, generator.tokenizer, prompts, settings, **extra)
    return time.perf_counter() - start, sum(len(o.ids) for o in outputs), outputs


def decode_rate(generator: ClaimGenerator, prompts: list[list[int]], settings: DecodeSettings, spg_path: bool):
    """Decoding tokens/s (prefill subtracted) and prefill seconds."""
    # the prompt's forward plus one token, without the grammar (which needs room for a whole forest)
    prefill, _, _ = timed(generator, prompts, dataclasses.replace(settings, max_new_tokens=1, min_new_tokens=0), False)
    seconds, tokens, _ = timed(generator, prompts, settings, spg_path)
    return (tokens - len(prompts)) / max(seconds - prefill, 1e-9), prefill


def agreement(fast: ClaimGenerator, reference: ClaimGenerator, prompts: list[list[int]], greedy: DecodeSettings):
    """Per document: (positions identical, positions compared, first differing position or None)."""
    rows = []
    for prompt in prompts:
        ours = timed(fast, [prompt], greedy, spg_path=False)[2][0].ids
        theirs = timed(reference, [prompt], greedy, spg_path=False)[2][0].ids
        same = sum(a == b for a, b in zip(ours, theirs))
        first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), None)
        rows.append((same, min(len(ours), len(theirs)), first))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="spg-smollm2")
    parser.add_argument("--runtime", default="onnx", help="the contender against float32 torch (spg's runtime key)")
    parser.add_argument("--docs", type=int, default=10, help="documents for the agreement figure")
    parser.add_argument("--new-tokens", type=int, default=256)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 4], help="batches of USPTO documents")
    parser.add_argument("--max-chars", type=int, default=6000, help="descriptions up to this long (prefill time)")
    args = parser.parse_args()
    torch.manual_seed(0)

    config = GenerateConfig.load(flags=[("--model", "model", args.model), ("--new-tokens", "max_new_tokens", args.new_tokens)])
    default = config.decode
    loads = {}
    generators = {}
    for runtime in ("torch", args.runtime):
        start = time.perf_counter()
        settings = dataclasses.replace(default, runtime=runtime)
        generators[runtime] = load_generator(args.model, settings, constrained=config.constrained, device="cpu")
        loads[runtime] = time.perf_counter() - start
    reference, fast = generators["torch"], generators[args.runtime]
    docs = documents(max(args.docs, *args.batch_sizes), args.max_chars)
    prompts = [reference.prompt(d) for d in docs]
    example = REPO / "spg" / "examples" / "folding_step_stool.txt"  # the main job's document
    main_job = [reference.prompt(Document(example.stem, example.read_text(encoding="utf-8")))]

    rate = bandwidth()
    # the merged model's weights (the LoRA factors stay beside them after merge_adapter, unread)
    weights = sum(p.numel() * p.element_size() for n, p in reference.lm.named_parameters() if "lora_" not in n)
    print(f"memory bandwidth (numpy sum of 1 GiB): {rate / 1e9:.1f} GB/s; float32 weights {weights / 1e6:.0f} MB; "
          f"bound {rate / weights:.1f} tokens/s at batch 1")
    for runtime, seconds in loads.items():
        print(f"load {runtime}: {seconds:.1f} s")

    greedy = DecodeSettings(max_new_tokens=args.new_tokens, min_new_tokens=args.new_tokens, do_sample=False)
    for batch, rows in [("1, main job", main_job), *((b, prompts[:b]) for b in args.batch_sizes)]:
        plain, plain_prefill = decode_rate(reference, rows, greedy, spg_path=False)
        ours, ours_prefill = decode_rate(fast, rows, fast.settings, spg_path=True)
        print(f"batch {batch} ({sum(map(len, rows))} prompt tokens): plain fp32 generate {plain:.1f} tokens/s "
              f"(prefill {plain_prefill:.1f} s); spg ({args.runtime}) {ours:.1f} tokens/s "
              f"(prefill {ours_prefill:.1f} s); ratio {ours / plain:.2f}x")

    rows = agreement(fast, reference, prompts[: args.docs], greedy)
    same, total = sum(r[0] for r in rows), sum(r[1] for r in rows)
    firsts = [r[2] for r in rows]
    print(f"greedy agreement with float32 over {len(rows)} documents, first {args.new_tokens} tokens: "
          f"{same}/{total} positions identical ({100 * same / max(total, 1):.1f}%); "
          f"first difference per document: {firsts} (None: identical)")


if __name__ == "__main__":
    main()
