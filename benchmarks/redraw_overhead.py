"""What the checker in the loop costs the main job's decoding: ``redraws: 0`` (off) against the default, alternated.

One process loads the main job's generator once (shipped model, its default runtime and settings, ``--max-new-tokens``)
and decodes the example description ``--repeats`` times each way, seed 0, counting the model's forwards and timing
the checker's own lint calls; it prints both times, the ratio per pair, and what each run printed (claims, redraws,
whether the budget of redraws ran out). Start-up is not timed: it is the same with and without the checker.

``--whole-process`` times what the user waits for instead: the README's main job (``spg generate --max-new-tokens
256``) as fresh processes, checker off (a config with ``redraws: 0`` and ``block_repeated_limitations: false``)
and on (the defaults), alternated, so both sides of each pair meet the same machine.

``--reader`` adds a third side to each round: the checker on with ``restatement: read`` (``spg generate
--restatement read``: the learned restatement reader reads each claim too, docs/generation.md), and says whether its
claims are the rules' own.

    python benchmarks/redraw_overhead.py                  # 3 pairs, decoding only
    python benchmarks/redraw_overhead.py --whole-process  # 3 pairs of whole `spg generate` processes
    python benchmarks/redraw_overhead.py --reader         # 3 rounds of off, on, on with the reader
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spg.cli.generate import example_path  # noqa: E402
from spg.generation.config import GenerateConfig  # noqa: E402
from spg.generation.generator import load_generator  # noqa: E402
from spg.generation.redraw import ClaimCheck  # noqa: E402
from spg.generation.runner import Document  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-new-tokens", type=int, default=256)
    parser.add_argument("--whole-process", action="store_true",
                        help="time whole `spg generate` processes (start-up included) instead of decoding alone")
    parser.add_argument("--reader", action="store_true",
                        help="also time the checker with the restatement reader (restatement: read)")
    args = parser.parse_args()
    if args.whole_process:
        whole_process(args.repeats, args.max_new_tokens, args.reader)
        return
    config = GenerateConfig.load(None)
    base = dataclasses.replace(config.decode, max_new_tokens=args.max_new_tokens)
    generator = load_generator(config.model, base, constrained=config.constrained, device="cpu")
    forwards = [0]
    generator.lm.register_forward_pre_hook(lambda module, inputs: forwards.__setitem__(0, forwards[0] + 1))
    doc = Document("folding_step_stool", example_path().read_text(encoding="utf-8"))
    sides = {"off": dataclasses.replace(base, redraws=0), "on": base}
    if args.reader:
        sides["on, reader"] = dataclasses.replace(base, restatement="read")
    times: dict[str, list[float]] = {side: [] for side in sides}
    claims: dict[str, str] = {}
    checking = [0.0, 0]  # seconds in the checker's lint and its calls, per run

    def timed(findings):
        def run(forest):
            start = time.perf_counter()
            try:
                return findings(forest)
            finally:
                checking[0] += time.perf_counter() - start
                checking[1] += 1
        return run

    for _ in range(args.repeats):
        for side, settings in sides.items():
            check = ClaimCheck.reading(settings.restatement)
            generator.settings, generator.check = settings, dataclasses.replace(check, findings=timed(check.findings))
            torch.manual_seed(config.seed)
            forwards[0], checking[:] = 0, [0.0, 0]
            start = time.perf_counter()
            (result,) = generator([doc])
            times[side].append(time.perf_counter() - start)
            claims[side] = result["claims_text"]
            print(f"checker {side} (redraws {settings.redraws}): {times[side][-1]:.2f} s, {forwards[0]} forwards, "
                  f"{len(result['forest'])} claims, {result['redraws']} redrawn, budget ran out: "
                  f"{result['ended_by_checker']}; its lint {checking[0]:.3f} s in {checking[1]} calls", flush=True)
    report(times)
    if args.reader:
        print("claims with the reader the same as with the rules alone:", claims["on, reader"] == claims["on"])


def report(times: dict[str, list[float]]) -> None:
    """Each side with the checker on against the checker off, pair by pair."""
    for side, on in times.items():
        if side != "off":
            ratios = [b / a for a, b in zip(times["off"], on, strict=True)]
            print(f"checker {side} / off, per pair:", ", ".join(f"{r:.2f}" for r in ratios),
                  f"(median {statistics.median(ratios):.2f})")


def whole_process(repeats: int, max_new_tokens: int, reader: bool) -> None:
    spg = Path(sys.executable).with_name("spg")
    command = [str(spg), "generate", "--max-new-tokens", str(max_new_tokens), "--no-progress"]
    with tempfile.TemporaryDirectory() as tmp:
        off_config = Path(tmp, "checker-off.yaml")
        off_config.write_text("redraws: 0\nblock_repeated_limitations: false\n", encoding="utf-8")
        runs = {"off": [*command, "--config", str(off_config)], "on": command}
        if reader:
            runs["on, reader"] = [*command, "--restatement", "read"]
        times: dict[str, list[float]] = {side: [] for side in runs}
        for _ in range(repeats):
            for side, argv in runs.items():
                start = time.perf_counter()
                done = subprocess.run(argv, capture_output=True, text=True, check=True)
                times[side].append(time.perf_counter() - start)
                summary = next(line for line in reversed(done.stdout.splitlines()) if " claims (" in line)
                print(f"checker {side}: {times[side][-1]:.2f} s, {summary}", flush=True)
    report(times)


if __name__ == "__main__":
    main()
