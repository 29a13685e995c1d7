"""Decoding throughput of spg's pointer-augmented generation vs plain ``model.generate`` vs the memory-bandwidth bound.

One process, one model (an SPG model: LoRA adapter + tags + pointer head around the backbone), the same left-padded
prompts, exactly ``--new-tokens`` new tokens per row (greedy, min = max), under several decoding configurations:

* ``before``: what spg ran until the throughput work: dynamic KV cache, eager step, adapter kept apart;
* ``merged``: the adapter folded into the base weights, still dynamic and eager;
* ``after``: spg's defaults on CUDA: adapter merged, static KV cache, the step compiled by transformers (torch.compile,
  CUDA graphs). The first call of a compiled configuration pays the compilation; it is warm-up. On the CPU this row
  still forces the static cache, uncompiled; spg's CPU default has a dynamic one (``cache_implementation: auto``:
  static only where the step is compiled), i.e. the ``merged`` row with the stop flag read one step late.

For each configuration both paths run alternately, ``--repeats`` times; medians are printed as tokens/s and ms per
decoding step, with each configuration's greedy outputs compared to the first one's (bf16 merging rounds the
weights, so a random model's argmax can flip). The bound is the time to read every weight once per step at the
bandwidth a large device-to-device copy reaches in this run (KV-cache reads ignored: it is a lower bound on time).

    python benchmarks/generation_throughput.py --device cpu --new-tokens 32 --batch 2        # embedded SmolLM2
    python benchmarks/generation_throughput.py --shape llama3-8b --dtype bfloat16 --batch 8 --new-tokens 256 \\
        --prompt-tokens 1024 --lora-r 96                                                      # the paper's shape
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import SHAPES, base_model  # noqa: E402

from spg.generation.pointer_decode import (  # noqa: E402
    DecodeSettings,
    deferred_stop_check,
    generate_batch,
    kv_cache,
    left_pad,
)
from spg.generation.request import DecodeRequest  # noqa: E402
from spg.model.backbone import resolve_device, resolve_dtype  # noqa: E402
from spg.model.prompt import build_prompt  # noqa: E402
from spg.model.spg_model import SPGConfig, SPGModel  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "spg" / "examples" / "folding_step_stool.txt"

# name -> (adapter merged, KV cache, compiled step, stop flag read one step late)
CONFIGS = {
    "before": (False, "dynamic", False, False),
    "merged": (True, "dynamic", False, False),
    "compiled": (True, "static", True, False),
    "after": (True, "static", True, True),
}


def bandwidth(device: torch.device, gib: float = 1.0, repeats: int = 5) -> float:
    """Bytes per second of a large copy (read + write), the best of ``repeats``."""
    src = torch.empty(int(gib * 2**30), dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    best = float("inf")
    for _ in range(repeats):
        sync(device)
        start = time.perf_counter()
        dst.copy_(src)
        sync(device)
        best = min(best, time.perf_counter() - start)
    return 2 * src.numel() / best


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed(fn: Callable[[], list[list[int]]], device: torch.device) -> tuple[float, list[list[int]]]:
    sync(device)
    start = time.perf_counter()
    out = fn()
    sync(device)
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="smollm2", help="backbone (HF name/path or the embedded smollm2); with "
                                                          "--shape only its tokenizer is used")
    parser.add_argument("--shape", choices=sorted(SHAPES), help="a randomly initialised model of this shape")
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--prompt-tokens", type=int, default=1024, help="prompt budget (the description is cut)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--device", help="default: cuda when available, else cpu")
    parser.add_argument("--dtype", default="auto", help="auto: bfloat16 on a GPU that supports it, else float32")
    parser.add_argument("--lora-r", type=int, default=SPGConfig.lora_r, help="LoRA rank (paper: 96)")
    parser.add_argument("--configs", default=",".join(CONFIGS), help=f"comma-separated, of {', '.join(CONFIGS)}")
    args = parser.parse_args()
    chosen = args.configs.split(",")
    if unknown := [c for c in chosen if c not in CONFIGS]:
        parser.error(f"unknown --configs {unknown}; expected some of {', '.join(CONFIGS)}")

    device = resolve_device(args.device)
    dtype = resolve_dtype(args.dtype, device)
    base, tokenizer = base_model(args.model, args.shape, dtype, device)
    spg = SPGModel.from_base(SPGConfig(base_model=args.model, lora_r=args.lora_r), base=base, tokenizer=tokenizer)
    spg = spg.to(device=device, dtype=dtype).eval()
    weights = sum(p.numel() * p.element_size() for p in spg.lm.parameters())
    text = EXAMPLE.read_text(encoding="utf-8")
    # Different lengths per row, so left padding is exercised.
    prompts = [build_prompt(tokenizer, text[: len(text) * (i + 1) // args.batch], args.prompt_tokens)
               for i in range(args.batch)]
    ids, mask = left_pad(prompts, tokenizer.pad_token_id)
    ids, mask = ids.to(device), mask.to(device)
    n = args.new_tokens
    greedy = DecodeSettings(max_new_tokens=n, min_new_tokens=n, do_sample=False)
    bytes_per_s = bandwidth(device)
    bound_s = weights / bytes_per_s  # per decoding step

    print(f"model {args.shape or args.model} ({sum(p.numel() for p in spg.lm.parameters()) / 1e9:.2f} B parameters, "
          f"{weights / 2**30:.1f} GiB) on {torch.cuda.get_device_name(device) if device.type == 'cuda' else 'cpu'}, "
          f"{dtype}; LoRA r {args.lora_r}; batch {args.batch}, prompts {min(map(len, prompts))}-"
          f"{max(map(len, prompts))} tokens, {n} new tokens, median of {args.repeats}")
    print(f"bandwidth bound: {bytes_per_s / 1e9:.0f} GB/s measured copy -> {1000 * bound_s:.2f} ms per step, "
          f"{args.batch / bound_s:.0f} tokens/s")

    reference: list[list[int]] | None = None
    merged = False
    results = {}
    for name in sorted(chosen, key=lambda c: CONFIGS[c][0]):  # unmerged first: merging is done once, in place
        merge, cache, compiled, deferred = CONFIGS[name]
        if merge and not merged:
            spg.lm.merge_adapter()
            merged = True
        settings = replace(greedy, cache_implementation=cache, compile=compiled, defer_stop_check=deferred)

        def plain(settings: DecodeSettings = settings) -> list[list[int]]:
            with torch.no_grad(), deferred_stop_check(settings.defer_stop_check and device.type == "cuda"):
                out = spg.lm.generate(input_ids=ids, attention_mask=mask, max_new_tokens=n, min_new_tokens=n,
                                      do_sample=False, pad_token_id=tokenizer.pad_token_id,
                                      cache_implementation=kv_cache(settings, device.type),
                                      disable_compile=not settings.compile)
            return out[:, ids.shape[1]:].tolist()

        def pointer(settings: DecodeSettings = settings) -> list[list[int]]:
            return [r.ids for r in generate_batch(DecodeRequest(spg.lm, tokenizer, prompts, settings, tagged=True, spg=spg))]

        first = {path: timed(fn, device)[0] for path, fn in (("plain", plain), ("pointer", pointer))}  # warm-up
        times: dict[str, list[float]] = {"plain": [], "pointer": []}
        runs = []
        for _ in range(args.repeats):
            for path, fn in (("plain", plain), ("pointer", pointer)):
                seconds, out = timed(fn, device)
                times[path].append(seconds)
                assert all(len(row) == n for row in out), f"{name}/{path}: a row did not get {n} new tokens"
                if path == "pointer":
                    runs.append(out)
        outputs = runs[-1]
        reference = reference or outputs
        same_rows = sum(a == b for a, b in zip(outputs, reference, strict=True))
        agree = [next((i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y), n)
                 for a, b in zip(outputs, reference, strict=True)]
        results[name] = {path: statistics.median(t) for path, t in times.items()}
        plain_s, pointer_s = results[name]["plain"], results[name]["pointer"]
        print(f"[{name}] merged={merge} cache={cache} compiled={compiled and device.type == 'cuda'} "
              f"deferred stop={deferred and device.type == 'cuda'}: "
              f"spg generate {args.batch * n / pointer_s:.0f} tokens/s ({1000 * pointer_s / n:.1f} ms/step), "
              f"plain generate {args.batch * n / plain_s:.0f} tokens/s ({1000 * plain_s / n:.1f} ms/step), "
              f"ratio spg/plain {pointer_s / plain_s:.3f}; first calls {first['pointer']:.1f} s / {first['plain']:.1f} s; "
              f"greedy outputs as [{chosen[0]}]: {same_rows}/{len(outputs)} rows, "
              f"first difference at token {min(agree)} (of {n}); repeats identical: {all(r == runs[0] for r in runs)}")
        sys.stdout.flush()
    if "before" in results:
        for name in results:
            gain = results["before"]["pointer"] / results[name]["pointer"]
            print(f"spg generate [{name}] / [before]: {gain:.2f}x tokens/s; at {bound_s / (results[name]['pointer'] / n):.0%} "
                  "of the bandwidth bound")


if __name__ == "__main__":
    main()
