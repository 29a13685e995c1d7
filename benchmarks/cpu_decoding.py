"""CPU decoding of the main job, every figure of issues 23 and 32 in one run: today's runtime against a candidate,
against plain float32 ``generate``, and the main job's whole process against a plain transformers process.

In one run, on real USPTO descriptions (``$SPG_DATA_DIR/uspto/patents.jsonl``, truncated to ``--max-prompt-tokens``)
and the shipped SPG model:

* the memory-bandwidth bound: a numpy sum over a 1 GiB buffer gives the bytes/s one thread reads; reading the
  float32 weights once per step at that rate is the fastest a float32 step can be (KV-cache reads ignored);
* load time of each contender: ``runtime: torch`` (the float32 PyTorch path), ``--runtime`` with
  ``onnx_weights: float32`` (today's default) and with ``--weights`` (the candidate; spg.model.gguf_blocks);
* decoding tokens/s at batch 1 on the main job's document and on ``--batch-sizes`` USPTO documents: ``plain fp32``
  is transformers' ``generate`` on the float32 PyTorch model (greedy, no processors, no drafts: the reference;
  ``--plain-tokens`` of them);
  ``today`` and ``candidate`` are spg's own path with default settings (grammar, loop control, pointer states,
  sampling at T = 0.1, prompt lookup where a batch holds one document); ``--no-drafts`` adds both without prompt
  lookup. Prefill is timed apart (a 1-token run of the same prompts) and subtracted, so the rates are decoding rates.
  The contenders alternate ``--repeats`` times; min–max is printed (the machine may be shared);
* greedy agreement: for each of ``--docs`` documents, the first ``--new-tokens`` greedy tokens of the candidate with
  drafts against today's path (``--reference today``: ONNX float32 with drafts) or float32 PyTorch without drafts
  (``--reference torch``, slower), on spg's constrained path (and unconstrained with ``--unconstrained``):
  positions identical, first difference; and the candidate's default (sampled) outputs with drafts against the same without, on
  ``--sampled-docs`` documents;
* the whole process, each a fresh process, alternating ``--repeats`` times: the main job (``spg generate
  --max-new-tokens 256``, today's defaults and the candidate's weights) and a plain float32 transformers process
  generating the same 256 tokens (benchmarks/startup.py ``plain``), and the ratio the issue asks about;
* the main job's start-up budget item by item (benchmarks/startup.py ``budget``) and ``spg --help`` / ``spg lint``.

    python benchmarks/cpu_decoding.py                                  # 10 documents, 256 tokens
    python benchmarks/cpu_decoding.py --docs 3 --new-tokens 64         # a quicker look
    python benchmarks/cpu_decoding.py --reference torch --batch-sizes 1 4 --no-drafts   # issue 23's full comparison
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import REPO, shared_file  # noqa: E402

from spg.generation.config import GenerateConfig  # noqa: E402
from spg.generation.generator import ClaimGenerator, load_generator  # noqa: E402
from spg.generation.pointer_decode import DecodeSettings, generate_batch  # noqa: E402
from spg.generation.request import DecodeRequest  # noqa: E402
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
    outputs = generate_batch(DecodeRequest(generator.lm, generator.tokenizer, prompts, settings, **extra))
    seconds = time.perf_counter() - start
    hook.remove()
    return seconds, sum(len(o.ids) for o in outputs), outputs, len(forwards)


def decode_rate(generator: ClaimGenerator, prompts: list[list[int]], settings: DecodeSettings, spg_path: bool):
    """Decoding tokens/s (prefill subtracted) and new tokens per forward after the prefill."""
    # the prompt's forward plus one token, without the grammar (which needs room for a whole forest)
    prefill = timed(generator, prompts, dataclasses.replace(settings, max_new_tokens=1, min_new_tokens=0), False)[0]
    seconds, tokens, _, forwards = timed(generator, prompts, settings, spg_path)
    steps = max(forwards - 1, 1)
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


def process_seconds(command: list[str]) -> float:
    """Wall seconds of ``command`` as a fresh process (it must succeed)."""
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def whole_process(repeats: int, candidate_config: Path | None) -> None:
    """The main job as a user runs it against a plain float32 transformers process with the same 256 tokens."""
    spg = [sys.executable, "-m", "spg.cli", "generate", "--max-new-tokens", "256", "--no-progress"]
    contenders = {"main job (today's defaults)": spg}
    if candidate_config is not None:
        contenders["main job (candidate weights)"] = [*spg, "--config", str(candidate_config)]
    contenders["plain fp32 transformers process"] = [sys.executable, str(REPO / "benchmarks" / "startup.py"), "plain"]
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(repeats):
        for name, command in contenders.items():
            times[name].append(process_seconds(command))
    plain = times["plain fp32 transformers process"]
    for name, seconds in times.items():
        ratios = [a / b for a, b in zip(seconds, plain, strict=True)]
        print(f"whole process, {name}: {span(seconds)} s over {repeats} runs; ratio to the plain process {span(ratios)}")


def startup_budget(candidate_config: Path | None) -> None:
    for name, extra in [("today's defaults", []), ("candidate weights", ["--config", str(candidate_config)])]:
        if name == "candidate weights" and candidate_config is None:
            continue
        done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "startup.py"), "budget", *extra], cwd=REPO,
                              check=True, capture_output=True, text=True)
        budget = json.loads(done.stdout.strip().splitlines()[-1])
        items = "; ".join(f"{item} {seconds:.2f}" for item, seconds in budget["items"].items())
        print(f"start-up budget of the main job ({name}), s: {items}; total {budget['total']:.2f}")


def cli_seconds() -> None:
    with tempfile.TemporaryDirectory() as folder:
        claims = Path(folder) / "claims.txt"
        claims.write_text("1. A chair comprising a seat.\n2. The chair of claim 1, wherein the seat is wooden.\n")
        for name, command in [("spg --help", ["--help"]), ("spg lint", ["lint", str(claims)])]:
            best = min(process_seconds([str(Path(sys.executable).with_name("spg")), *command]) for _ in range(3))
            print(f"{name}: {best:.2f} s (best of 3)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="spg-smollm2")
    parser.add_argument("--runtime", default="onnx", help="the runtime of today's path and the candidate")
    parser.add_argument("--weights", default="blocks", help="the candidate's onnx_weights (today's: float32)")
    parser.add_argument("--reference", choices=("today", "torch"), default="today",
                        help="greedy agreement against today's path (ONNX float32, drafts) or float32 PyTorch")
    parser.add_argument("--docs", type=int, default=10, help="documents for the greedy agreement figures")
    parser.add_argument("--sampled-docs", type=int, default=3, help="documents for the drafts/no-drafts sampled check")
    parser.add_argument("--new-tokens", type=int, default=256)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1], help="batches of USPTO documents")
    parser.add_argument("--max-prompt-tokens", type=int, default=1024, help="descriptions truncated to fit (prefill time)")
    parser.add_argument("--repeats", type=int, default=2, help="timed runs per contender, alternating")
    parser.add_argument("--no-drafts", action="store_true", help="also time today's path and the candidate undrafted")
    parser.add_argument("--plain-tokens", type=int, default=64,
                        help="new tokens of the plain float32 reference's rate (its 14 tokens/s made 256 a fifth of "
                             "the run; its rate barely changes with the count)")
    parser.add_argument("--unconstrained", action="store_true",
                        help="also compare greedy tokens without spg's grammar (another ~2 minutes at the defaults)")
    args = parser.parse_args()
    torch.manual_seed(0)
    began = time.perf_counter()

    config = GenerateConfig.load(flags=[("--model", "model", args.model), ("--new-tokens", "max_new_tokens", args.new_tokens)])
    loads, generators = {}, {}
    contenders = {"torch": ("torch", "float32"), "today": (args.runtime, "float32"), "candidate": (args.runtime, args.weights)}
    for name, (runtime, weights) in contenders.items():
        start = time.perf_counter()
        settings = dataclasses.replace(config.decode, runtime=runtime, onnx_weights=weights)
        generators[name] = load_generator(args.model, settings, constrained=config.constrained, device="cpu",
                                          max_prompt_tokens=args.max_prompt_tokens)
        loads[name] = time.perf_counter() - start
    reference, today, fast = generators["torch"], generators["today"], generators["candidate"]
    docs = documents(max(args.docs, *args.batch_sizes))
    prompts = [reference.prompt(d) for d in docs]
    example = REPO / "spg" / "examples" / "folding_step_stool.txt"  # the main job's document
    main_job = [reference.prompt(Document(example.stem, example.read_text(encoding="utf-8")))]

    rate = bandwidth()
    weights = sum(p.numel() * p.element_size() for p in reference.lm.parameters())
    print(f"memory bandwidth (numpy sum of 1 GiB): {rate / 1e9:.1f} GB/s; float32 weights {weights / 1e6:.0f} MB; "
          f"bound {rate / weights:.1f} tokens/s at batch 1")
    for name, seconds in loads.items():
        print(f"load {name} {contenders[name]}: {seconds:.1f} s (ready forms and exports cached)")

    greedy = DecodeSettings(max_new_tokens=args.new_tokens, min_new_tokens=args.new_tokens, do_sample=False)
    for batch, rows in [("1, main job", main_job), *((b, prompts[:b]) for b in args.batch_sizes)]:
        rates: dict[str, list[float]] = {"plain": [], "today": [], "candidate": [], "today, no drafts": [],
                                         "candidate, no drafts": []}
        kept = []
        for _ in range(args.repeats):  # alternating, so that a load change on the shared machine hits all of them
            plain = dataclasses.replace(greedy, max_new_tokens=args.plain_tokens, min_new_tokens=args.plain_tokens,
                                        prompt_lookup_tokens=0)
            rates["plain"].append(decode_rate(reference, rows, plain, False)[0])
            for name, generator in [("today", today), ("candidate", fast)]:
                rate, per_forward = decode_rate(generator, rows, generator.settings, spg_path=True)
                rates[name].append(rate)
                kept.append(per_forward)
                if args.no_drafts:
                    undrafted = dataclasses.replace(generator.settings, prompt_lookup_tokens=0)
                    rates[f"{name}, no drafts"].append(decode_rate(generator, rows, undrafted, spg_path=True)[0])
        ratio = [c / t for c, t in zip(rates["candidate"], rates["today"], strict=True)]
        shown = "; ".join(f"{name} {span(values)}" for name, values in rates.items() if values)
        print(f"batch {batch} ({sum(map(len, rows))} prompt tokens), decoding tokens/s over {args.repeats} runs: {shown}; "
              f"candidate/today {span(ratio)}x; {span(kept)} tokens kept per forward")

    constrained = dataclasses.replace(fast.settings, do_sample=False)
    against = today if args.reference == "today" else reference
    modes = [("unconstrained", greedy, False)] if args.unconstrained else []
    for name, settings, spg_path in [*modes, ("spg constrained", constrained, True)]:
        reference_settings = settings if args.reference == "today" else dataclasses.replace(settings, prompt_lookup_tokens=0)
        rows = agreement(fast, settings, against, reference_settings, prompts[: args.docs], spg_path)
        report(f"greedy agreement of the candidate ({args.weights}) with {args.reference}'s path ({name})", rows,
               args.new_tokens)
    undrafted = dataclasses.replace(fast.settings, prompt_lookup_tokens=0)
    rows = agreement(fast, fast.settings, fast, undrafted, prompts[: args.sampled_docs], True)
    report(f"the candidate's default sampled outputs ({args.weights}) with drafts against without", rows, args.new_tokens)

    with tempfile.TemporaryDirectory() as folder:
        candidate_config = None
        if args.weights != "float32":
            candidate_config = Path(folder) / "candidate.yaml"
            candidate_config.write_text(f"onnx_weights: {args.weights}\n", encoding="utf-8")
        whole_process(args.repeats, candidate_config)
        startup_budget(candidate_config)
    cli_seconds()
    print(f"this run: {(time.perf_counter() - began) / 60:.1f} min")


if __name__ == "__main__":
    main()
