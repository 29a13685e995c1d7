"""Cost of pointer-augmented generation over plain ``model.generate`` (target: ratio <= 1.05).

Both paths run the same SPG model (LoRA adapter + tags + pointer head around the backbone) on the same
left-padded prompts for exactly the same number of new tokens (min_new_tokens = max_new_tokens, greedy).
The pointer path is :func:`spg.generation.pointer_decode.generate_batch`: it records the last-layer
states during ``generate``, picks every ``<dep>``'s parent with the pointer, and decodes the text.
Runs alternate between the two paths; the ratio of the medians is printed.

    python benchmarks/generation_overhead.py                     # embedded SmolLM2-135M
    python benchmarks/generation_overhead.py --new-tokens 256 --batch 4 --repeats 5 --device cuda
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spg.generation.pointer_decode import DecodeSettings, generate_batch, kv_cache, left_pad  # noqa: E402
from spg.generation.request import DecodeRequest  # noqa: E402
from spg.model.prompt import build_prompt  # noqa: E402
from spg.model.spg_model import SPGConfig, SPGModel  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "spg" / "examples" / "folding_step_stool.txt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2", help="base model (HF name/path or the embedded smollm2)")
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--prompt-tokens", type=int, default=384, help="prompt budget (the description is cut)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--lora-r", type=int, default=SPGConfig.lora_r, help="LoRA rank (paper: 96)")
    parser.add_argument("--cache", default=DecodeSettings.cache_implementation, choices=["auto", "static", "dynamic"],
                        help="transformers' KV cache, the same for both paths (auto, spg's default: static where the step is "
                             "compiled, i.e. on CUDA, dynamic elsewhere)")
    args = parser.parse_args()

    spg = SPGModel.from_base(SPGConfig(base_model=args.model, lora_r=args.lora_r), dtype=getattr(torch, args.dtype)).to(args.device).eval()
    tok = spg.tokenizer
    text = EXAMPLE.read_text(encoding="utf-8")
    # Different lengths per row, so left padding is exercised.
    prompts = [build_prompt(tok, text[: len(text) * (i + 1) // args.batch], args.prompt_tokens) for i in range(args.batch)]
    ids, mask = left_pad(prompts, tok.pad_token_id)
    ids, mask = ids.to(args.device), mask.to(args.device)
    n = args.new_tokens
    settings = DecodeSettings(max_new_tokens=n, min_new_tokens=n, do_sample=False, cache_implementation=args.cache)

    def sync() -> None:
        if args.device.startswith("cuda"):
            torch.cuda.synchronize()

    def plain() -> int:
        with torch.no_grad():
            out = spg.lm.generate(input_ids=ids, attention_mask=mask, max_new_tokens=n, min_new_tokens=n,
                                  do_sample=False, pad_token_id=tok.pad_token_id,
                                  cache_implementation=kv_cache(settings, ids.device.type))
        return out.shape[1] - ids.shape[1]

    def pointer() -> int:
        results = generate_batch(DecodeRequest(spg.lm, tok, prompts, settings, tagged=True, spg=spg))
        return max(len(r.ids) for r in results)

    plain(), pointer()  # warm-up: kernels, allocator, caches
    # Wall time, and on CPU also this process's CPU time: on a shared machine the latter is far less noisy.
    clocks = {"wall": time.perf_counter, "cpu": time.process_time}
    times = {(path, clock): [] for path in ("plain", "pointer") for clock in clocks}
    for _ in range(args.repeats):
        for name, fn in (("plain", plain), ("pointer", pointer)):
            sync()
            start = {clock: read() for clock, read in clocks.items()}
            produced = fn()
            sync()
            for clock, read in clocks.items():
                times[name, clock].append(read() - start[clock])
            assert produced == n, f"{name} produced {produced} tokens, expected {n}"
    print(f"model {args.model} on {args.device} ({args.dtype}, {kv_cache(settings, ids.device.type)} cache); batch {args.batch}, prompts <= "
          f"{args.prompt_tokens} tokens, {n} new tokens, {args.repeats} repeats, median of each")
    for clock in clocks if args.device == "cpu" else ("wall",):
        plain_s, pointer_s = (statistics.median(times[path, clock]) for path in ("plain", "pointer"))
        runs = {path: ", ".join(f"{t:.3f}" for t in times[path, clock]) for path in ("plain", "pointer")}
        print(f"[{clock}] plain generate {plain_s:.3f} s ({runs['plain']}); "
              f"pointer-augmented {pointer_s:.3f} s ({runs['pointer']})")
        print(f"[{clock}] ratio (pointer / plain): {pointer_s / plain_s:.3f}  (target <= 1.05); pointer-augmented "
              f"{args.batch * n / pointer_s:.1f} tokens/s, {1000 * pointer_s / n:.1f} ms per decoding step")


if __name__ == "__main__":
    main()
