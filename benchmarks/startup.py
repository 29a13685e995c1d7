"""Two fresh processes that benchmarks/cpu_decoding.py times from outside (each prints one JSON line).

``budget`` — the start-up of the main job (``spg generate --max-new-tokens 256`` on the example description) item by
item, in the order ``spg generate`` meets them: the command line, the settings (with the prompt-frame check, which
reads the tokenizer), torch and transformers' generation code, the ready form's name (its key hashes the artefacts'
files), the model (ONNX Runtime's session, the pointer head, the grammar), the prompt, and the first token (the
prompt's forward). ``python -X importtime benchmarks/startup.py budget 2> imports.txt`` names every import.

``plain`` — a plain float32 transformers process generating the same 256 tokens: the ready form's merged model
loaded by ``AutoModelForCausalLM``, the main job's prompt, greedy ``generate``. The reference the issue's "whole
process" ratio divides by.

    python benchmarks/startup.py budget [--config FILE]
    python benchmarks/startup.py plain
"""

from __future__ import annotations

import dataclasses
import json
import time

START = time.perf_counter()
MAIN_JOB = ["generate", "--max-new-tokens", "256", "--no-progress"]


def budget(config: str | None) -> dict:
    marks: dict[str, float] = {}
    last = START

    def mark(item: str) -> None:
        nonlocal last
        now = time.perf_counter()
        marks[item] = round(now - last, 3)
        last = now

    from spg.cli import build_parser  # what `spg` imports before it runs a command
    from spg.cli.generate import example_path, settings

    mark("command line (spg.cli)")
    args = build_parser().parse_args(MAIN_JOB + (["--config", config] if config else []))
    generate = settings(args)
    mark("settings + prompt-frame check (reads the tokenizer)")
    import torch
    from transformers.generation import utils  # noqa: F401

    mark("import torch + transformers' generation")
    from spg.generation.generator import load_generator

    mark("import spg's generation")
    from spg.model.config import describe
    from spg.model.ready import ready_forms

    ready_forms(describe(generate.model), torch.float32)
    mark("ready form's name (hashes its files)")
    generator = load_generator(generate.model, generate.decode, constrained=generate.constrained,
                               max_prompt_tokens=generate.max_prompt_tokens, dtype=generate.dtype, device="cpu")
    mark("model: session, pointer head, grammar (the ready name again)")
    from spg.generation.runner import Document

    prompt = generator.prompt(Document("example", example_path().read_text(encoding="utf-8")))
    mark("prompt")
    from spg.generation.pointer_decode import generate_batch
    from spg.generation.request import DecodeRequest

    one = dataclasses.replace(generate.decode, max_new_tokens=1, min_new_tokens=0, prompt_lookup_tokens=0)
    generate_batch(DecodeRequest(generator.lm, generator.tokenizer, [prompt], one, tagged=False))
    mark(f"first token (the prompt's forward, {len(prompt)} tokens)")
    return {"items": marks, "total": round(time.perf_counter() - START, 3)}


def plain() -> dict:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from spg.cli.generate import example_path
    from spg.model.config import INSTRUCTION, describe
    from spg.model.prompt import build_prompt
    from spg.model.ready import ready_forms

    folder = ready_forms(describe("spg-smollm2"), torch.float32).merged()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    ids = build_prompt(tokenizer, example_path().read_text(encoding="utf-8"), 7168, INSTRUCTION)
    loaded = time.perf_counter()
    out = model.generate(torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                         max_new_tokens=256, min_new_tokens=256, do_sample=False, pad_token_id=tokenizer.pad_token_id)
    return {"new_tokens": out.shape[1] - len(ids), "load": round(loaded - START, 3),
            "generate": round(time.perf_counter() - loaded, 3)}


if __name__ == "__main__":
    import argparse  # after START's clock, as every import the budget counts

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="?", choices=("budget", "plain"), default="budget",
                        help="budget: the main job's start-up item by item; plain: a plain fp32 transformers process")
    parser.add_argument("--config", help="a generation config for the main job (budget only)")
    args = parser.parse_args()
    print(json.dumps(budget(args.config) if args.what == "budget" else plain()))
