"""``spg generate``: descriptions in, claim forests out (docs/generation.md).

With no arguments it drafts claims for the example description shipped with spg, using the shipped SPG model
(spg-smollm2: the embedded SmolLM2-135M-Instruct with its Stage I and LPO adapters), and prints the claims in full
and the linted forest.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from spg.cli.command import add_command
from spg.config import Invalid
from spg.data import DataError, documents
from spg.docx import claims_docx
from spg.errors import InputError, shown
from spg.files import check_append_target, check_destination, write_docx
from spg.forest import Forest
from spg.lint.check import RESTATEMENT_MODES

if TYPE_CHECKING:  # imported by the handlers only: it pulls in torch
    from spg.generation.config import GenerateConfig

EXAMPLE = "examples/folding_step_stool.txt"
SHOW_AT_MOST = 3  # documents whose claims and linted forest are printed at the end
CLAIM_WIDTH = 100
CLAIMS_DOCX = "claims"  # the kind of the Word document --docx writes (spg.files)


def example_path() -> Path:
    return Path(str(resources.files("spg").joinpath(EXAMPLE)))


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "generate", run,
                    summary="draft claim sets from patent descriptions (SPG models, or any chat model zero-shot)",
                    description="""
        Generate a claim set for each description. MODEL is an SPG artefact directory (spg train output) or any Hugging
        Face chat model (name or path; prompted zero-shot); the default is the embedded SmolLM2-135M-Instruct. INPUT is
        a text file or a Word document (one description), or a .json/.jsonl file or folder of patent records. Results
        are appended to OUTPUT (JSONL) as they finish; re-running skips the ids already there. Defaults are the paper's
        evaluation settings (temperature 0.1 with sampling, 1,024 new tokens, prompts cut to 7,168 tokens).""")
    p.add_argument("--model", help="SPG artefact dir or HF chat model name/path (default: embedded smollm2)")
    p.add_argument("--input", action="append", metavar="PATH",
                   help=f"description(s): a text file or .docx, or .json/.jsonl (optionally .gz) or folder of records; repeat for "
                        f"several sources (default: spg/{EXAMPLE})")
    p.add_argument("--split", choices=("train", "dev"),
                   help="only the documents of this side of spg's fixed train/dev split (spg.data.document_split)")
    p.add_argument("--output", help="results JSONL (appended; finished ids are skipped on re-run)")
    p.add_argument("--docx", metavar="OUT.docx", help="also write the drafted claims as a Word document: 'What is "
                   "claimed is:' and the claims numbered (one description only; OUT is marked as spg's by the custom "
                   f"document property spg={CLAIMS_DOCX} and only such a file is replaced)")
    p.add_argument("--config", help="YAML file with generation settings (flags given here override it)")
    p.add_argument("--zero-shot", action="store_true", default=None, help="prompt the model zero-shot")
    p.add_argument(
        "--constrained",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="structure-constrained decoding: every output is a valid forest (default: on for SPG models)",
    )
    p.add_argument("--max-new-tokens", type=int, help="generation budget per document (paper: 1,024)")
    p.add_argument("--max-prompt-tokens", type=int, help="prompts are cut to this many tokens (the description)")
    p.add_argument("--temperature", type=float, help="sampling temperature (paper: 0.1)")
    p.add_argument("--greedy", dest="do_sample", action="store_false", default=None,
                   help="greedy decoding instead of sampling")
    p.add_argument("--no-repeat-ngram-size", type=int, metavar="N",
                   help="never write an N-gram twice inside one generated claim (0: off; not in the paper)")
    p.add_argument("--repetition-penalty", type=float, help="transformers' repetition penalty (1.0: off)")
    p.add_argument("--boundary-temperature", type=float,
                   help="sample the token after each claim's end (another claim, a new tree, or the end) at this "
                        "temperature; the text keeps --temperature (not in the paper; docs/generation.md)")
    p.add_argument("--restatement", choices=RESTATEMENT_MODES,
                   help="as spg lint --restatement: rules (default), or read: the learned restatement reader also "
                        "reads each claim, the checker redraws one it flags, and the lint printed at the end is spg "
                        "lint --restatement read's (config key restatement; docs/generation.md)")
    p.add_argument("--batch-size", type=int, help="documents decoded together (default: 4 on the CPU, 16 on a GPU)")
    p.add_argument("--sort-by-length", action=argparse.BooleanOptionalAction, default=None,
                   help="decode the longest prompts first, so each batch pads less and a GPU's compiled step is reused; "
                        "results are then written in that order (default: on)")
    p.add_argument("--seed", type=int, help="sampling seed")
    p.add_argument("--device", help="cpu, cuda, cuda:N (default: cuda when available, else cpu)")
    p.add_argument("--dtype", help="auto (bfloat16 on a GPU that supports it, else float32), float32, bfloat16")
    p.add_argument("--limit", type=int, help="only the first N documents")
    p.add_argument("--shard", metavar="I/N",
                   help="generate only shard I of N (0-based; by a hash of the document id) into OUTPUT's "
                        "shard file (out.jsonl -> out.shard-I-of-N.jsonl), then merge every shard's results into "
                        "OUTPUT; under accelerate launch or torchrun each process takes its rank's shard and GPU")
    p.add_argument("--skip-bad", action="store_true", help="skip malformed input records (reported on stderr)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


# Flags whose name is not their config key with dashes (any other flag whose dest is a config key sets that key).
FLAG_NAMES = {"do_sample": "--greedy"}


def settings(args: argparse.Namespace) -> GenerateConfig:
    """The run's settings, checked (spg.config: the model's generate.yaml < --config < flags); no torch yet."""
    from spg.config import flags_from
    from spg.generation.config import GenerateConfig

    return GenerateConfig.load(args.config, flags_from(args, GenerateConfig, FLAG_NAMES))


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``--shard I/N``; without it, the rank's shard of a multi-process launch (WORLD_SIZE > 1), else None."""
    if text is None:
        world, rank = os.environ.get("WORLD_SIZE", "1") or "1", os.environ.get("RANK", "0") or "0"
        if not (world.isdigit() and rank.isdigit() and int(rank) < max(int(world), 1)):
            raise InputError(f"WORLD_SIZE={world!r}, RANK={rank!r}: expected integers with 0 <= RANK < WORLD_SIZE "
                             "(set by accelerate launch or torchrun)")
        return (int(rank), int(world)) if int(world) > 1 else None
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and int(index) < int(count)):
        raise InputError(f"--shard {text}: expected I/N with 0 <= I < N, e.g. 0/4")
    return int(index), int(count)


def launch_device() -> str | None:
    """The GPU of this process of a multi-process launch (one per process: ``LOCAL_RANK``), where there is one."""
    if "LOCAL_RANK" not in os.environ:
        return None
    import torch

    return f"cuda:{os.environ['LOCAL_RANK']}" if torch.cuda.is_available() else None


@dataclass(frozen=True)
class Job:
    """What one run reads and writes, from its flags, checked before any file is touched (how it decodes:
    :func:`settings`)."""

    inputs: list[str]
    output: Path | None
    target: Path | None  # where this process appends its results: ``output``, or its shard's file
    docx: str | None
    shard: tuple[int, int] | None
    limit: int | None
    split: str | None
    skip_bad: bool
    progress: bool

    @classmethod
    def of(cls, args: argparse.Namespace) -> Job:
        from spg.generation.runner import shard_path

        if args.limit is not None and args.limit < 1:
            raise InputError(f"--limit must be at least 1, got {args.limit}")
        if args.docx and not args.docx.lower().endswith(".docx"):
            raise InputError(f"{args.docx}: --docx writes a Word document; expected a name ending .docx")
        shard = parse_shard(args.shard)
        output = Path(args.output) if args.output else None
        if shard and output is None:
            raise InputError("--shard (or a multi-process launch) needs --output: the shards' results merge into it")
        return cls(args.input or [str(example_path())], output, shard_path(output, *shard) if shard else output,
                   args.docx, shard, args.limit, args.split, args.skip_bad, not args.no_progress)


def budget_note(cut: int) -> str:
    """The summary line's word on claims the token budget ended (left out of every output)."""
    if not cut:
        return ""
    claims = "1 claim" if cut == 1 else f"{cut} claims"
    return f"; the token budget ended {claims}, left out (a larger --max-new-tokens gives more)"


def claim_lines(forest) -> list[str]:
    """Each claim in full, numbered and wrapped as a claim set is read (the tree below shows each only begun)."""
    return [textwrap.fill(f"{c.num}. {' '.join(c.text.split())}", width=CLAIM_WIDTH, subsequent_indent="   ",
                          break_long_words=False, break_on_hyphens=False) for c in forest.claims]


def print_forest(result: dict, description: str | None = None, restatement: str = "rules") -> None:
    """The document's claims in full, then what ``spg lint --no-config --description --restatement`` prints for them
    (the description check included, where ``description`` is given; restatement read as the checker read it)."""
    from spg.lint import lint_lines

    forest = Forest.from_rows(result["forest"])
    print(f"== {result['id']} ({result['mode']}, {result['new_tokens']} new tokens)")
    if forest.claims:
        print("\n".join([*claim_lines(forest), "", *lint_lines(forest, description, restatement)]))
    else:
        print("no claims found in the output:")
        print(result["raw"][:500])
    if result.get("ended_by_checker"):
        print(f"(the checker ended the claim set after claim {len(forest.claims)}: the next claim drew a finding "
              "spg lint blocks in every redraw the budget allows; `redraws` and `redraw_tokens` in a --config file "
              "set the budget)")
    if result.get("cut_by_budget"):
        print(f"(the token budget ended claim {len(forest.claims) + 1}, so it is left out; "
              "a larger --max-new-tokens gives more)")
    if forest.claims and result["valid"] is False:
        print("invalid tagged output: " + "; ".join(result["reasons"]))


def run(args: argparse.Namespace) -> int:
    from spg.generation.runner import RESULT

    job = Job.of(args)
    config = settings(args)
    for path in dict.fromkeys(p for p in (job.output, job.target) if p is not None):
        check_append_target(path, RESULT)
    if job.docx:
        check_destination(job.docx, CLAIMS_DOCX)
    skipped: list[DataError] = []
    try:
        docs = documents(job.inputs, job.skip_bad, skipped, job.limit, job.split)
    except OSError as e:
        raise InputError(f"{e.filename}: cannot read ({e.strerror or e})") from None
    if not docs:
        skipped_note = f" ({len(skipped)} bad records skipped)" if skipped else ""
        raise InputError(f"no documents to generate for{skipped_note}")
    if job.docx and len(docs) != 1:
        raise InputError(f"--docx writes one claim set as a Word document, but the input holds {len(docs)} "
                         "documents; expected one description (or --limit 1)")
    if not any(d.description.strip() for d in docs):
        raise InputError(f"{' '.join(job.inputs)}: every description is empty; expected text to draft claims "
                         "for")

    import torch
    from transformers.utils import logging as transformers_logging

    from spg.generation.generator import load_generator
    from spg.generation.runner import run as run_documents
    from spg.model.prompt import check_room, prompt_frame

    if not job.progress:
        transformers_logging.disable_progress_bar()  # "Loading weights" and the like
    try:
        generator = load_generator(
            config.model,
            config.decode,
            zero_shot=config.zero_shot,
            constrained=config.constrained,
            max_prompt_tokens=config.max_prompt_tokens,
            dtype=config.dtype,
            device=config.device or (launch_device() if job.shard else None),
        )
    except (OSError, ValueError) as e:  # a tokenizer library's message names neither the flag nor the folder
        message = " ".join(str(e).split())
        raise InputError(message if config.model in message else f"model {shown(config.model)} (--model or the "
                         f"config's model): cannot be loaded ({message}); expected a Hugging Face model folder with "
                         "its tokenizer, or an SPG artefact") from None
    try:  # where the tokenizer could not be read before loading (GenerateConfig.check_available)
        check_room(config.model, config.max_prompt_tokens, prompt_frame(generator.tokenizer, generator.instruction))
    except Invalid as err:
        raise InputError(str(err)) from None
    print(
        f"model {shown(config.model)} ({generator.mode}{', constrained' if generator.constrained else ''}); "
        f"{len(docs)} documents",
        file=sys.stderr,
    )
    torch.manual_seed(config.seed)
    summary = run_documents(
        docs, generator, job.output, config.batch_size_on(generator.lm.device.type), shard=job.shard,
        progress=job.progress, total=len(docs), length=generator.prompt_length if config.sort_by_length else None,
    )
    resumed = f", {summary.already_done} already in {shown(job.target)}" if job.target else ""
    print(
        f"{summary.written} generated{resumed}, {len(summary.bad)} bad; "
        f"{summary.new_tokens} new tokens in {summary.seconds:.1f} s "
        f"({summary.new_tokens / max(summary.seconds, 1e-9):.1f} tokens/s){budget_note(summary.cut_claims)}",
        file=sys.stderr,
    )
    if job.shard:
        print(f"shard {job.shard[0]}/{job.shard[1]}: merged {summary.merged} results into {shown(job.output)}",
              file=sys.stderr)
    no_claims = False
    if job.docx:
        drafted = [r for r in summary.results if r["id"] == docs[0].id]
        no_claims = bool(drafted) and not drafted[0]["forest"]
        if drafted and not no_claims:
            write_docx(job.docx, CLAIMS_DOCX, claims_docx(Forest.from_rows(drafted[0]["forest"]), title=docs[0].id))
        elif no_claims:  # a claims document without claims is no result: the document was not generated
            why = ("the token budget ended claim 1; a larger --max-new-tokens gives more" if drafted[0]["cut_by_budget"]
                   else "no claim could be read from the model's output")
            print(f"{shown(job.docx)}: not written: the draft of {shown(docs[0].id)} has no claims ({why})",
                  file=sys.stderr)
        else:
            print(f"{shown(job.docx)}: not written: {shown(docs[0].id)} was drafted by an earlier run "
                  f"(in {shown(job.target)}) or not at all", file=sys.stderr)
    descriptions = {d.id: d.description for d in reversed(docs)}  # a repeated id: the first one, the one drafted
    for result in summary.results[:SHOW_AT_MOST]:
        print_forest(result, descriptions[result["id"]], config.decode.restatement)
    if len(summary.results) > SHOW_AT_MOST:
        print(f"… {len(summary.results) - SHOW_AT_MOST} more documents" + (f" in {job.output}" if job.output else ""))
    return 1 if summary.bad or skipped or no_claims else 0
