"""Cost of the Stage I structure terms: step time and peak memory of L_LM + γ·L_struct + η·L_scope vs L_LM alone.

Same model (the embedded SmolLM2-135M-Instruct + LoRA, or --model), same batch built from shared USPTO
documents, one process; the two variants are timed alternately so machine noise hits both alike. A step is
forward + backward + AdamW step. Memory: on CUDA ``torch.cuda.max_memory_allocated`` during a step (weights
excluded); on CPU each variant runs alone in a child process and reports its peak RSS (VmHWM, reset after the
model is loaded) minus the RSS before its first step, i.e. what the steps add on top of the loaded model.

    python benchmarks/stage1_overhead.py --docs 1 --max-length 512 --repeats 3
    # the paper's setting on a GPU: Llama-3-8B's shape (random weights), bf16, activation checkpointing, r 96
    python benchmarks/stage1_overhead.py --shape llama3-8b --docs 1 --max-length 8192 --dtype bfloat16 \
        --gradient-checkpointing --lora-r 96
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from common import SHAPES, base_model, shared_file  # noqa: E402

from spg.data import load_records  # noqa: E402
from spg.model.backbone import resolve_device, resolve_dtype  # noqa: E402
from spg.model.batch import Collator, build_example  # noqa: E402
from spg.model.losses import stage1_loss  # noqa: E402
from spg.model.spg_model import SPGConfig, SPGModel  # noqa: E402


def make_step(model: SPGModel, batch: dict, optim: torch.optim.Optimizer, structure: bool):
    gamma, eta = (1.0, 0.01) if structure else (0.0, 0.0)

    def step() -> None:
        out = model(**batch, structure=structure)
        if structure:
            loss = stage1_loss(out.lm_loss, out.struct_loss, out.scope_loss, gamma, eta).mean()
        else:
            loss = out.lm_loss.mean()
        optim.zero_grad(set_to_none=True)
        loss.backward()
        optim.step()
        if next(model.parameters()).is_cuda:
            torch.cuda.synchronize()

    return step


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak_rss_bytes() -> int:
    with open("/proc/self/status") as f:
        kib = next(line.split()[1] for line in f if line.startswith("VmHWM:"))
    return int(kib) * 1024


def cuda_peak(step) -> int:
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    step()
    return torch.cuda.max_memory_allocated() - base


def cpu_peak(variant: str) -> int:
    """Peak RSS added by two steps of one variant, measured in a fresh process so the variants don't mix."""
    command = [sys.executable, __file__, *sys.argv[1:], "--only", variant]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    return int(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="smollm2", help="base model name or path (default: embedded SmolLM2)")
    parser.add_argument("--shape", choices=sorted(SHAPES), help="a randomly initialised model of this shape (with "
                                                               "--model's tokenizer)")
    parser.add_argument("--docs", type=int, default=2, help="batch size: this many USPTO documents")
    parser.add_argument("--max-length", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", help="default: cuda when available, else cpu")
    parser.add_argument("--dtype", default="float32", help="float32, bfloat16, or auto (bf16 on a GPU that has it)")
    parser.add_argument("--gradient-checkpointing", action="store_true", help="activation checkpointing, as the paper")
    parser.add_argument("--lora-r", type=int, default=16, help="LoRA rank (paper: 96)")
    parser.add_argument("--only", choices=["lm", "stage1"], help=argparse.SUPPRESS)  # child: print peak RSS delta
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    device = resolve_device(args.device)
    config = SPGConfig(base_model=args.model, max_length=args.max_length, lora_r=args.lora_r)
    base, tokenizer = base_model(args.model, args.shape, resolve_dtype(args.dtype, device), device)
    model = SPGModel.from_base(config, base=base, tokenizer=tokenizer).to(device)
    if args.gradient_checkpointing:
        model.activation_checkpointing_enable()
    model.train()
    records = [r for r in load_records(shared_file("uspto/patents.jsonl")) if r.claims.num_dependent > 0]
    examples = [
        build_example(model.tokenizer, r.description, r.claims, args.max_length, args.max_length // 2)
        for r in records[: args.docs]
    ]
    batch = {k: v.to(device) for k, v in Collator(model.tokenizer.pad_token_id)(examples).items()}
    optim = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-5)
    steps = {"lm": make_step(model, batch, optim, False), "stage1": make_step(model, batch, optim, True)}
    if args.only:
        before = rss_bytes()
        # Reset the process's peak RSS (VmHWM) so model loading does not count; Linux >= 4.0.
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        steps[args.only]()
        steps[args.only]()
        print(peak_rss_bytes() - before)
        return

    for step in steps.values():  # warm-up: allocator, optimizer state
        step()
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(args.repeats):
        for name, step in steps.items():
            start = time.perf_counter()
            step()
            times[name].append(time.perf_counter() - start)
    t_lm, t_s1 = statistics.median(times["lm"]), statistics.median(times["stage1"])
    claims, tokens = int(batch["claim_mask"].sum()), int(batch["attention_mask"].sum())
    print(f"device={device} model={args.shape or args.model} dtype={args.dtype} lora_r={args.lora_r} "
          f"checkpointing={args.gradient_checkpointing} batch={args.docs}x{batch['input_ids'].shape[1]} tokens, {claims} claims")
    print(f"step time (median of {args.repeats}): LM only {t_lm:.3f} s, Stage I {t_s1:.3f} s, ratio {t_s1 / t_lm:.4f} (target <= 1.03); "
          f"Stage I {tokens / t_s1:.0f} tokens/s, {1000 * t_s1:.0f} ms per step")
    print(f"  all LM-only steps: {', '.join(f'{t:.3f}' for t in times['lm'])}")
    print(f"  all Stage I steps: {', '.join(f'{t:.3f}' for t in times['stage1'])}")
    sys.stdout.flush()
    if device.type == "cuda":
        memory, kind = {name: cuda_peak(step) for name, step in steps.items()}, "torch.cuda.max_memory_allocated"
    else:
        memory, kind = {name: cpu_peak(name) for name in steps}, "peak RSS over the loaded model, one process each"
    print(f"peak step memory ({kind}): LM only {memory['lm'] / 2**20:.1f} MiB, Stage I {memory['stage1'] / 2**20:.1f} MiB, "
          f"ratio {memory['stage1'] / memory['lm']:.4f}")


if __name__ == "__main__":
    main()
