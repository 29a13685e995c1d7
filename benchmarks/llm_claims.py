"""A labelled corpus of real LLM claims (issue 43): build it, hand it to blind readers, score ``spg lint`` on it.

Every item is one claim a language model wrote, in the claim set it sits in (benchmarks/sets/README.md,
"LLM claims"): the HUPD-DCG sample's eight systems, PatClaimEval's generated first claims, the embedded
SmolLM2-135M-Instruct zero-shot (whole claim sets, and next claims after claims 1..k of a real document) and the
shipped SPG model with the checker off, on documents of every side of ``spg.data.checker_split``; a second batch
(``--more``) of the last two on more train and dev documents only, at several k and temperatures; a third
(``--batch 3``) of the chat model where it chooses a dependent claim's subject: next claims after claims that hold
independent claims of two statutory categories or more, and whole sets, on train and dev documents of both shared
corpora; a fourth (``--batch 4``), the third's procedure on test documents (then dev), of no earlier batch; a fifth
(``--batch 5``), the fourth's documents again at other k; a sixth (``--batch 6``), the third's documents so; a
seventh (``--batch 7``), the third's procedure on test documents of no earlier batch, claims 1..k up to 3,000
characters; an eighth (``--batch 8``), the fourth's test documents at the k neither it nor the fifth took.

    python benchmarks/llm_claims.py --generate WORK [--budget-s 2400]   # run the models (CPU), WORK/*.jsonl
    python benchmarks/llm_claims.py --generate WORK --more [--budget-s 1200]  # the second batch (train, dev)
    python benchmarks/llm_claims.py --generate WORK --batch 3 [--budget-s 1100]  # the third batch (train, dev)
    python benchmarks/llm_claims.py --generate WORK --batch 4 [--budget-s 1500]  # the fourth batch (test, dev)
    python benchmarks/llm_claims.py --generate WORK --batch 5 [--budget-s 1300]  # the fifth (the fourth's, other k)
    python benchmarks/llm_claims.py --generate WORK --batch 6 [--budget-s 1300]  # the sixth (the third's, other k)
    python benchmarks/llm_claims.py --generate WORK --batch 7 [--budget-s 1200]  # the seventh (test, longer prompts)
    python benchmarks/llm_claims.py --generate WORK --batch 8 [--budget-s 1200]  # the eighth (the fourth's, the rest)
    python benchmarks/llm_claims.py --build [--generated WORK]           # benchmarks/sets/llm_claims.jsonl
    python benchmarks/llm_claims.py --packet DIR [--batch 2|3|4|5|6|7|8]       # what the blind readers get
    python benchmarks/llm_claims.py --score SHEET_A SHEET_B [--restatement read]  # agreement, consensus, spg lint
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import json
import random
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from common import bad, jsonl_rows, shared_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spg.data import checker_split  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SETS = REPO / "benchmarks" / "sets"
SEED = 43
# documents of the shared USPTO set per side of checker_split: next claims on all, whole sets on the first few
NEXT_DOCS = {"train": 20, "dev": 10, "test": 15}
SPG_DOCS = {"train": 4, "dev": 3, "test": 4}
SET_DOCS = {"train": 2, "dev": 2, "test": 2}
# The second batch (a train side to train a reader on): the documents after the first batch's in the same draw,
# train and dev only; next claims after up to MORE_KS values of k each, and whole sets of the shipped model, each
# at every temperature of MORE_TEMPERATURES (None: the generator's own decoding: greedy, or the shipped T = 0.1)
MORE_NEXT_DOCS = {"train": 40, "dev": 15}
MORE_SPG_DOCS = {"train": 6, "dev": 3}
MORE_KS = 3
MORE_BATCH = 8  # next claims decoded together
MORE_TEMPERATURES = (None, 0.7, 1.0)
NEXT_PROMPT_CHARS = 1500  # claims 1..k shown to the model: at most this much text (a 135M model's prompt, CPU time)
# The third batch (preamble and subject slips, which the first two hardly hold): next claims after one k per document
# whose claims 1..k hold independent claims of two statutory categories or more (a method and an apparatus, a
# medium), so that the model chooses among subjects; at MORE_TEMPERATURES, on train and dev documents of the USPTO
# set, then of Pap2Pat, those of no earlier batch first. A second category's claim comes late, hence a longer
# prompt (of Pap2Pat's train and dev documents 25 have such a k within 1,500 characters, 54 within 2,000). And the
# chat model's whole sets on the first of those documents, sampled at THIRD_SET_TEMPERATURES, their dependent claims
# the items.
THIRD_NEXT_DOCS = {"train": 26, "dev": 13}
THIRD_SET_DOCS = {"train": 4, "dev": 2}
THIRD_SET_TEMPERATURES = (0.7, 1.0)
THIRD_PROMPT_CHARS = 2000
# The fourth batch: the third's procedure on the test side first, then dev (about 3:1 of the documents asked for;
# never train), documents of no earlier batch only: of both corpora's test and dev documents, 27 test and 8 dev are
# of no earlier batch and have such a k, so dev gives what it has.
FOURTH_NEXT_DOCS = {"test": 27, "dev": 9}
FOURTH_SET_DOCS = {"test": 4, "dev": 2}
# The fifth batch (more held-out items): the fourth's documents again, at the k of spread(mixed_ks, MORE_KS) other
# than the fourth's (the smallest): the largest, then one between. No whole sets: those would be the fourth's again.
# The sixth (train and dev items of the kind the fifth found most preamble slips in): the third's documents so, in
# the third's order (in proportion: a run cut short keeps both sides).
# The seventh (more held-out items: every test document with such a k within THIRD_PROMPT_CHARS was the fourth's):
# test documents of no earlier batch whose first such k lies within SEVENTH_PROMPT_CHARS, the third's procedure else.
SEVENTH_NEXT_DOCS = {"test": 40}
SEVENTH_PROMPT_CHARS = 3000  # about 750 tokens: within the generator's max_prompt_tokens (1,024) with the instruction
# The eighth (more held-out preamble items, which the seventh's longer prompts hardly gave): the fourth's test
# documents again, at the k of mixed_ks neither it nor the fifth took, spread(..., MORE_KS) of them.
EIGHTH_NEXT_DOCS = {"test": FOURTH_NEXT_DOCS["test"]}


class MixedBatch(NamedTuple):
    """A batch of the third's procedure (next claims where claims 1..k hold two statutory categories, whole sets)."""

    name: str  # its outputs in WORK: smollm2_next_{name}.jsonl, smollm2_sets_{name}_t{T}.jsonl
    next_docs: dict[str, int]  # documents asked for per side, next claims on all
    set_docs: dict[str, int]  # whole sets on the first ones per side
    fresh: bool  # documents of no earlier batch only (the third took those first, then others where short)
    side_by_side: bool  # the sides in the order of next_docs, all of one before the next (else mixed in proportion)
    again: int | None = None  # that batch's documents again, at its k's others of spread(mixed_ks, MORE_KS)
    prompt_chars: int = THIRD_PROMPT_CHARS  # claims 1..k at most this long (mixed_ks)
    rest: bool = False  # with again: the k that neither that batch nor its first repeat took


MIXED = {3: MixedBatch("third", THIRD_NEXT_DOCS, THIRD_SET_DOCS, fresh=False, side_by_side=False),
         4: MixedBatch("fourth", FOURTH_NEXT_DOCS, FOURTH_SET_DOCS, fresh=True, side_by_side=True),
         5: MixedBatch("fifth", FOURTH_NEXT_DOCS, {}, fresh=True, side_by_side=True, again=4),
         6: MixedBatch("sixth", THIRD_NEXT_DOCS, {}, fresh=False, side_by_side=False, again=3),
         7: MixedBatch("seventh", SEVENTH_NEXT_DOCS, {}, fresh=True, side_by_side=True,
                       prompt_chars=SEVENTH_PROMPT_CHARS),
         8: MixedBatch("eighth", EIGHTH_NEXT_DOCS, {}, fresh=True, side_by_side=True, again=4, rest=True)}

MIN_WORDS = 5  # usable(): shorter candidates are dropped
PATCLAIMEVAL_ITEMS = 100  # asked of its 146 distinct generated first claims (about 520 words each); 90 had
LEAD_IN = re.compile(r"\A[^:\n]{0,60}:\s*(?=\d+\.\s)")  # "The next claim is: " before "4. The device …"
SET_CAP = 8  # claims per generated set of the CPU models, the first ones

NEXT_INSTRUCTION = """\
You are a patent attorney. Below are the first claims of a patent application. Write the next claim: one new \
dependent claim that refers to one of these claims by its number ("The ... of claim N, wherein ...") and narrows \
it with a further feature. Write only that one claim, numbered with the next number."""


def data_dir() -> Path:
    return shared_file("uspto/patents.jsonl").parents[1]


def uspto_rows() -> list[dict]:
    with open(data_dir() / "uspto" / "patents.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def pap2pat_rows() -> list[dict]:
    with gzip.open(data_dir() / "pap2pat" / "patents.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def next_ks(claims: list[dict], chars: int = NEXT_PROMPT_CHARS) -> list[int]:
    """Every k whose claims 1..k fit ``chars`` and whose real claim k + 1 is a dependent one (the model is asked
    for what the applicant wrote there), in order."""
    from spg.parse import claim_parents

    ks, size = [], 0
    for i, claim in enumerate(claims[:-1]):
        size += len(claim["text"]) + 1
        if size > chars:
            break
        following = claims[i + 1]
        if claim_parents(following["text"], following["num"]) and following["num"] == claim["num"] + 1:
            ks.append(claim["num"])
    return ks


def next_k(claims: list[dict]) -> int | None:
    """The largest of next_ks (the first batch's one k per document); None where there is none."""
    return max(next_ks(claims), default=None)


def mixed_ks(claims: list[dict], chars: int = THIRD_PROMPT_CHARS) -> list[int]:
    """The next_ks within ``chars`` whose claims 1..k hold independent claims of two statutory categories
    or more (spg.lint.preamble.category of each subject as spg.lint.clauses reads it), in order."""
    from spg.lint.clauses import read_claim
    from spg.lint.preamble import category
    from spg.parse import claim_parents

    ks, categories = set(next_ks(claims, chars)), set()
    mixed = []
    for claim in claims:
        if not claim_parents(claim["text"], claim["num"]):
            subject = read_claim(claim["text"], claim["num"], dependent=False).subject
            categories |= {category(subject)} if subject else set()
        if claim["num"] in ks and len(categories) > 1:
            mixed.append(claim["num"])
    return mixed


def spread(ks: list[int], n: int) -> list[int]:
    """At most ``n`` of ``ks``, the largest first, then the smallest, then evenly between (the second batch's k)."""
    if len(ks) <= n:
        return sorted(ks, reverse=True)
    picked = [ks[-1], ks[0]] + [ks[round(i * (len(ks) - 1) / (n - 1))] for i in range(1, n - 1)]
    return list(dict.fromkeys(picked))[:n]


def chosen_documents(counts: dict[str, int] = NEXT_DOCS) -> dict[str, list[dict]]:
    """Per side of checker_split, the shared USPTO documents in a seeded order (description and a k for a next
    claim required); the first counts[side] (the first batch: NEXT_DOCS[side]) are used."""
    rows = sorted(uspto_rows(), key=lambda r: r["id"])
    random.Random(SEED).shuffle(rows)
    chosen: dict[str, list[dict]] = {side: [] for side in NEXT_DOCS}
    for row in rows:
        side = checker_split(row["id"])
        nums = [c["num"] for c in row["claims"]]
        if len(chosen[side]) >= counts.get(side, 0) or not row.get("description") or nums != sorted(set(nums)):
            continue
        k = next_k(row["claims"])
        if k is not None:
            chosen[side].append({**row, "k": k})
    return chosen


def _interleaved(chosen: dict[str, list[dict]], counts: dict[str, int]) -> list[dict]:
    """The first counts[side] documents of each side, round robin, so that a run cut short keeps every side."""
    lists = [chosen[side][: counts[side]] for side in counts]
    return [doc for group in zip(*[lst + [None] * (max(map(len, lists)) - len(lst)) for lst in lists])
            for doc in group if doc is not None]


def _cli_generate(docs: list[dict], work: Path, name: str, args: list[str], deadline: float,
                  batch: int = 1) -> None:
    """``spg generate`` on ``docs``, ``batch`` at a time decoded together, into WORK/name.jsonl (it resumes), until
    the deadline."""
    inputs = work / f"{name}.input.jsonl"
    output = work / f"{name}.jsonl"
    done = {row["id"] for row in _results(output)}
    docs = [doc for doc in docs if doc["id"] not in done]  # a run again goes on where one stopped
    for i in range(0, len(docs), batch):
        if time.time() > deadline:
            print(f"{name}: budget spent after {i} documents", flush=True)
            return
        now = docs[i:i + batch]
        inputs.write_text("".join(json.dumps({k: v for k, v in doc.items() if k != "k"}) + "\n" for doc in now),
                          encoding="utf-8")
        subprocess.run([sys.executable, "-m", "spg.cli", "generate", "--input", str(inputs), "--output", str(output),
                        "--batch-size", str(batch), "--no-progress", *args], check=True, stdout=subprocess.DEVNULL)
        print(f"{name}: {i + len(now)}/{len(docs)} {now[-1]['id']} {time.time():.0f}", flush=True)


def _next_claims(jobs: list[tuple[dict, int, float | None]], work: Path, name: str, deadline: float,
                 batch: int = 1) -> None:
    """The embedded chat model asked for claim k + 1 after claims 1..k (NEXT_INSTRUCTION), greedy or sampled at a
    temperature (seed SEED each batch), ``batch`` (document, k, temperature) jobs at a time, appended to WORK/name.jsonl (jobs
    already there are skipped)."""
    import dataclasses

    import torch

    from spg.data import Document
    from spg.generation.config import DecodeSettings
    from spg.generation.generator import load_generator

    output = work / f"{name}.jsonl"
    done = {(row["id"], row["k"], row.get("temperature")) for row in _results(output)}
    todo = [(doc, k, t) for doc, k, t in jobs if (doc["id"], k, t) not in done]
    if not todo:
        return
    # ONNX Runtime: the same greedy tokens as PyTorch (docs/generation.md, "CPU decoding"), several times as fast here
    settings = DecodeSettings(max_new_tokens=80, do_sample=False, redraws=0, block_repeated_limitations=False,
                              runtime="onnx")
    generator = dataclasses.replace(load_generator("smollm2", settings, zero_shot=True, max_prompt_tokens=1024),
                                    instruction=NEXT_INSTRUCTION)
    # jobs of one temperature in a row decode together, ``batch`` at a time: on the 2-core CPU a batch of 8 costs
    # far less than 8 single runs (the first batch ran them one at a time: 1 is its batch)
    batches = [list(group) for _, group in itertools.groupby(todo, key=lambda job: job[2])]
    batches = [group[i:i + batch] for group in batches for i in range(0, len(group), batch)]
    for i, jobs_now in enumerate(batches, 1):
        if time.time() > deadline:
            print(f"{name}: budget spent after {i - 1} of {len(batches)} batches", flush=True)
            return
        temperature = jobs_now[0][2]
        sampled = settings if temperature is None else dataclasses.replace(settings, do_sample=True,
                                                                           temperature=temperature)
        torch.manual_seed(SEED)  # spg's sampling draws its key from torch's global RNG (spg.generation.sampling)
        results = dataclasses.replace(generator, settings=sampled)(
            [Document(doc["id"], "\n".join(c["text"] for c in doc["claims"] if c["num"] <= k))
             for doc, k, _ in jobs_now])
        with output.open("a", encoding="utf-8") as f:
            for (doc, k, _), result in zip(jobs_now, results, strict=True):
                # the first batch's rows have no "temperature" (greedy): kept so, its outputs read as before
                row = {"id": doc["id"], "k": k} | ({} if temperature is None else {"temperature": temperature})
                f.write(json.dumps(row | {"raw": result["raw"], "cut_by_budget": result["cut_by_budget"],
                                          "new_tokens": result["new_tokens"]}) + "\n")
        print(f"{name}: {i}/{len(batches)} batches, T={temperature} {time.time():.0f}", flush=True)


def _setup(work: Path) -> tuple[Path, Path]:
    """WORK, with the two --config files the runs of ``spg generate`` read: the checker off; the zero-shot on ONNX."""
    work.mkdir(parents=True, exist_ok=True)
    off = work / "checker_off.yaml"
    off.write_text("redraws: 0\nblock_repeated_limitations: false\n", encoding="utf-8")
    zero_shot = work / "generate-smollm2-onnx.yaml"
    zero_shot.write_text((REPO / "configs" / "cpu" / "generate-smollm2.yaml").read_text(encoding="utf-8")
                         + "runtime: onnx\n", encoding="utf-8")
    return off, zero_shot


def generate(work: Path, budget_s: float) -> None:
    """Run the three model sources on the chosen documents (CPU), each until its share of ``budget_s`` is spent (a
    run again skips the documents each source has done: the first run of the committed outputs gave the shipped
    model 500 s before the others, then stopped and ran again with --budget-s 1200)."""
    off, zero_shot = _setup(work)
    chosen = chosen_documents()
    start = time.time()
    _next_claims([(doc, doc["k"], None) for doc in _interleaved(chosen, NEXT_DOCS)], work, "smollm2_next",
                 start + 0.6 * budget_s)
    # the embedded chat model zero-shot, as docs/generation.md's real run (prompt cut to 1,500 tokens), on ONNX
    _cli_generate(_interleaved(chosen, SET_DOCS), work, "smollm2_sets",
                  ["--config", str(zero_shot), "--max-new-tokens", "200"], start + 0.8 * budget_s)
    # the shipped model with its own settings (constrained, T = 0.1, seed 0), the checker in the loop off
    _cli_generate(_interleaved(chosen, SPG_DOCS), work, "spg_off",
                  ["--model", "spg-smollm2", "--config", str(off), "--max-new-tokens", "300"], start + budget_s)
    print(f"generation: {time.time() - start:.0f} s wall", flush=True)


def more_documents() -> dict[str, list[dict]]:
    """The second batch's documents per side: the MORE_NEXT_DOCS[side] after the first batch's in the same draw
    (train and dev only: the test side keeps the first batch's documents alone)."""
    counts = {side: NEXT_DOCS[side] + n for side, n in MORE_NEXT_DOCS.items()}
    return {side: docs[NEXT_DOCS[side]:] for side, docs in chosen_documents(counts).items() if side in MORE_NEXT_DOCS}


def _in_proportion(chosen: dict[str, list[dict]], counts: dict[str, int]) -> list[dict]:
    """The first counts[side] documents of each side, mixed in the sides' proportions, so that a run cut short by
    its budget keeps them (the second batch's train share)."""
    ranked = [((i + 1) / counts[side], n, doc) for n, side in enumerate(counts)
              for i, doc in enumerate(chosen[side][: counts[side]])]
    return [doc for _, _, doc in sorted(ranked, key=lambda r: r[:2])]


def _side_by_side(chosen: dict[str, list[dict]], counts: dict[str, int]) -> list[dict]:
    """The first counts[side] documents of each side, side after side in the order of ``counts``, so that a run cut
    short keeps the first side whole (the fourth batch's test side before its dev side)."""
    return [doc for side in counts for doc in chosen[side][: counts[side]]]


def _every_temperature(pairs: list[tuple[dict, int]]) -> list[tuple[dict, int, float | None]]:
    """(document, k) pairs as next-claim jobs: MORE_BATCH pairs at every MORE_TEMPERATURES, then the next
    MORE_BATCH, so that a run cut short keeps every temperature."""
    return [(doc, k, t) for i in range(0, len(pairs), MORE_BATCH) for t in MORE_TEMPERATURES
            for doc, k in pairs[i:i + MORE_BATCH]]


def generate_more(work: Path, budget_s: float) -> None:
    """The second batch: SmolLM2's next claims after several k of more train and dev documents, and the shipped
    model's whole sets with the checker off on some of them, each at every MORE_TEMPERATURES (0.6 and 0.4 of
    ``budget_s``); resumable as ``generate``."""
    off, _ = _setup(work)
    chosen = more_documents()
    start = time.time()
    pairs = [(doc, k) for doc in _in_proportion(chosen, MORE_NEXT_DOCS) for k in spread(next_ks(doc["claims"]), MORE_KS)]
    _next_claims(_every_temperature(pairs), work, "smollm2_next_more", start + 0.6 * budget_s, MORE_BATCH)
    for doc in _in_proportion(chosen, MORE_SPG_DOCS):
        for t in MORE_TEMPERATURES:  # one output file per temperature: each resumes by document
            _cli_generate([doc], work, more_name("spg_off_more", t),
                          ["--model", "spg-smollm2", "--config", str(off), "--max-new-tokens", "300"]
                          + ([] if t is None else ["--temperature", str(t)]), start + budget_s)
    print(f"generation: {time.time() - start:.0f} s wall", flush=True)


def mixed_documents(batch: int) -> dict[str, list[dict]]:
    """A MIXED batch's documents per side (its next_docs' sides), each with its ``k`` (the first of mixed_ks): the
    USPTO set in the first batches' seeded draw, then Pap2Pat in a draw of its own with SEED; the documents of no
    earlier batch's item first, in that order (only those, where the batch is ``fresh``)."""
    spec = MIXED[batch]
    used = {row["doc"] for _, row in jsonl_rows(ITEMS) if row.get("batch", 1) < batch}
    draws = []
    for rows in (uspto_rows(), pap2pat_rows()):
        rows.sort(key=lambda r: r["id"])
        random.Random(SEED).shuffle(rows)
        draws += [row for row in rows if not (spec.fresh and row["id"] in used)]
    chosen: dict[str, list[dict]] = {side: [] for side in spec.next_docs}
    for row in sorted(draws, key=lambda r: r["id"] in used):  # a stable sort: each draw's order kept
        side = checker_split(row["id"])
        nums = [c["num"] for c in row["claims"]]
        if (side not in chosen or len(chosen[side]) >= spec.next_docs[side] or not row.get("description")
                or nums != sorted(set(nums))):
            continue
        ks = mixed_ks(row["claims"], spec.prompt_chars)
        if ks:  # the first: most often the second category's claim, its dependent next
            chosen[side].append({**row, "k": ks[0]})
    return chosen


def mixed_pairs(docs: list[dict], spec: MixedBatch) -> list[tuple[dict, int]]:
    """A MIXED batch's (document, k) next-claim jobs: each document's ``k``, or where the batch takes an earlier
    one's documents ``again``, those of spread(mixed_ks, MORE_KS) other than that ``k``, the largest first (and
    where it takes the ``rest``, spread(..., MORE_KS) of the k those left)."""
    if spec.again is None:
        return [(doc, doc["k"]) for doc in docs]
    pairs = []
    for doc in docs:
        ks = mixed_ks(doc["claims"], spec.prompt_chars)
        taken = spread(ks, MORE_KS)  # the first batch's k (the smallest) is one of them
        pairs += [(doc, k) for k in (spread([k for k in ks if k not in taken], MORE_KS) if spec.rest else taken)
                  if k != doc["k"]]
    return pairs


def generate_mixed(work: Path, budget_s: float, batch: int) -> None:
    """A MIXED batch: SmolLM2's next claims after the k of mixed_pairs at every MORE_TEMPERATURES (0.7 of
    ``budget_s``; all of it where the batch has no whole sets), then its whole sets zero-shot on the first set_docs
    of them at every THIRD_SET_TEMPERATURES, MORE_BATCH documents a run; resumable as ``generate``."""
    spec = MIXED[batch]
    _, zero_shot = _setup(work)
    chosen = mixed_documents(spec.again or batch)
    order = _side_by_side if spec.side_by_side else _in_proportion
    docs = order(chosen, spec.set_docs)
    start = time.time()
    _next_claims(_every_temperature(mixed_pairs(order(chosen, spec.next_docs), spec)), work,
                 f"smollm2_next_{spec.name}", start + (0.7 if docs else 1.0) * budget_s, MORE_BATCH)
    for i, t in enumerate(THIRD_SET_TEMPERATURES, 1):  # one output file per temperature, each its share
        _cli_generate(docs, work, more_name(f"smollm2_sets_{spec.name}", t),
                      ["--config", str(zero_shot), "--max-new-tokens", "200", "--temperature", str(t)],
                      start + (0.7 + 0.3 * i / len(THIRD_SET_TEMPERATURES)) * budget_s, MORE_BATCH)
    print(f"generation: {time.time() - start:.0f} s wall", flush=True)


def more_name(name: str, temperature: float | None) -> str:
    return name if temperature is None else f"{name}_t{temperature}"


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def usable(text: str) -> bool:
    """The one rule that drops a candidate: fewer than MIN_WORDS words after its number (empty, or a fragment the
    token budget or a parse left), or no letter at all. Everything else a model wrote stays, copies included."""
    from spg.parse import _strip_number  # noqa: PLC2701 - the parser's own reading of "12. "

    body = _strip_number(text)[1]
    return len(body.split()) >= MIN_WORDS and any(ch.isalpha() for ch in body)


def _item(source: str, doc: str, split: str, claim, chain) -> dict:
    """One item: ``claim`` (a spg.forest.Claim) with ``chain`` (the claims before it that it shows) as context."""
    key = f"{source}|{doc}|{claim.num}|{claim.text}"
    return {"id": "L" + hashlib.sha256(key.encode()).hexdigest()[:10], "source": source, "doc": doc, "split": split,
            "claim": claim.num, "independent": not claim.parents, "context": "\n".join(map(_numbered, chain)),
            "candidate": _numbered(claim)}


def _numbered(claim) -> str:
    """A claim as one line, its number first (spg.forest.Claim keeps the text without it)."""
    return f"{claim.num}. {' '.join(claim.text.split())}"


def _up_the_chain(forest, claim) -> list:
    """The claims ``claim`` depends on, up the chain, in claim order (every parent of a multiple dependent)."""
    by_num = {c.num: c for c in forest.claims}
    seen: set[int] = set()
    todo = list(claim.parents)
    while todo:
        num = todo.pop()
        if num in by_num and num not in seen and num < claim.num:
            seen.add(num)
            todo.extend(by_num[num].parents)
    return [by_num[n] for n in sorted(seen)]


def _whole_set_items(source: str, doc: str, split: str, text: str, cap: int | None = None) -> list[dict]:
    """Every usable claim of a generated claim set (parsed by spg.parse) with its chain as context, a claim whose
    words and chain repeat an earlier item's once; at most ``cap`` items, the first ones, where given."""
    from spg.parse import parse_claims

    forest = parse_claims(text)
    items, seen = [], set()
    for claim in forest.claims:
        item = _item(source, doc, split, claim, _up_the_chain(forest, claim))
        # a claim said again word for word under the same chain is the same item to a reader: kept once
        shown = (item["context"], " ".join(claim.text.split()))
        if usable(claim.text) and shown not in seen:
            seen.add(shown)
            items.append(item)
    return items[:cap]


def hupd_dcg_items() -> list[dict]:
    """The eight systems' claim sets for the HUPD-DCG sample's patent: every claim of each."""
    path = data_dir() / "hupd-dcg" / "sample_outputs.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    doc = record["publication_number"].split("-")[0]
    items = []
    for field in sorted(k for k in record if k.endswith("-claim")):
        items += _whole_set_items("hupd-dcg:" + field.removesuffix("-claim"), doc, checker_split(doc), record[field])
    return items


def patclaimeval_items(count: int) -> list[dict]:
    """``count`` of PatClaimEval's generated first claims (A and B, not the copies of the gold claim nor a candidate
    again where its patent recurs), drawn with SEED per side of the split in checker_split's proportions; the split by a hash
    of the gold claim (checker_split on its SHA-256), the document named by it too."""
    from spg.parse import parse_claims

    path = data_dir() / "patclaimeval" / "quality_test.json"
    pool: dict[str, dict] = {}
    for row in json.loads(path.read_text(encoding="utf-8")):
        gold = hashlib.sha256(row["gold_claim"].encode()).hexdigest()
        for side in ("A", "B"):
            claims = parse_claims(row[side]).claims
            if _norm(row[side]) == _norm(row["gold_claim"]) or not claims or not usable(claims[0].text):
                continue
            item = _item("patclaimeval", "patclaimeval-" + gold[:12], checker_split(gold), claims[0], [])
            # a patent comes in several rows (one per compared pair), so one candidate can recur: taken once
            pool.setdefault(item["id"], item)
    from spg.data import CHECKER_PERCENT

    rng, drawn = random.Random(SEED), []
    for side, percent in CHECKER_PERCENT.items():  # each side its share of ``count``, as checker_split's proportions
        on_side = [item for item in pool.values() if item["split"] == side]
        drawn += rng.sample(on_side, min(round(count * percent / 100), len(on_side)))
    return drawn


def _results(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


def next_claim_items(rows: list[dict], documents: dict[str, dict]) -> list[dict]:
    """SmolLM2's next claims: the first claim its output holds (spg.parse), numbered k + 1 whatever number the model
    gave it (a model that starts again at "1." has still written the claim that follows k), with claims 1..k as
    context; an output the parser reads no claim in gives its first line. Lines before the first usable one, and a
    lead-in up to a colon before a claim number ("The next claim is: 4. The device …"), are left out. Where the token budget (80) ended the first claim, the claim as
    far as it went is the candidate (a reader sees it break off)."""
    from spg.forest import Claim
    from spg.parse import _strip_number, claim_parents, parse_claims  # noqa: PLC2701

    items = []
    for row in rows:
        doc = documents[row["id"]]
        # the output's whole claims; where the token budget ended the first claim, that claim as far as it went
        text = row["raw"] if row["raw"].strip() else row["cut_by_budget"]
        lines = [line for line in text.split("\n") if line.strip()]
        while lines and not usable(lines[0]):  # a lead-in shorter than a claim ("The next claim is:")
            lines.pop(0)
        text = LEAD_IN.sub("", "\n".join(lines), count=1)
        claims = parse_claims(text).claims if text.strip() else []
        first = claims[0].text if claims else text.strip().split("\n")[0]
        body = _strip_number(first)[1]
        if not usable(body):
            continue
        given = [c for c in parse_claims(doc["claims"]).claims if c.num <= row["k"]]
        items.append(_item("smollm2-zero-shot-next", doc["id"], checker_split(doc["id"]),
                           Claim(row["k"] + 1, body, claim_parents(body, row["k"] + 1)), given))
    return items


def build(work: Path, out: Path) -> list[dict]:
    """Every source's items, in one JSONL (source by source, in a fixed order; batch after batch)."""
    documents = {r["id"]: r for r in uspto_rows()}
    items = (hupd_dcg_items() + patclaimeval_items(PATCLAIMEVAL_ITEMS)
             + next_claim_items(_results(work / "smollm2_next.jsonl"), documents))
    for name, source in (("spg_off", "spg-smollm2-checker-off"), ("smollm2_sets", "smollm2-zero-shot")):
        for row in _results(work / f"{name}.jsonl"):
            items += _whole_set_items(source, row["id"], checker_split(row["id"]), row["claims_text"], SET_CAP)
    ids = Counter(item["id"] for item in items)
    assert max(ids.values()) == 1, f"items with one id: {[i for i, n in ids.items() if n > 1]}"
    known = set(ids)
    if any((work / f"smollm2_next_{spec.name}.jsonl").exists() for spec in MIXED.values()):  # also Pap2Pat's
        documents |= {r["id"]: r for r in pap2pat_rows()}
    # after the first batch's, whose items and ids stay as they were; each later batch's stay so under the next's
    for item in more_items(work, documents) + [item for batch in MIXED for item in mixed_items(work, documents, batch)]:
        if item["id"] not in known:  # one claim written again at another temperature is one item: the first kept
            known.add(item["id"])
            items.append(item)
    _write_jsonl(out, items)
    return items


def more_items(work: Path, documents: dict[str, dict]) -> list[dict]:
    """The second batch's items (where WORK holds its outputs), each with ``batch`` 2 and the ``settings`` that
    wrote it: greedy first, then T = 0.7, then T = 1.0."""
    items = _decoded_next_items(work / "smollm2_next_more.jsonl", documents, 2)
    for t in MORE_TEMPERATURES:
        decoding = {"temperature": 0.1 if t is None else t, "seed": 0}
        for row in _results(work / f"{more_name('spg_off_more', t)}.jsonl"):
            items += [item | {"batch": 2, "settings": {**decoding, "checker": "off", "max_new_tokens": 300}}
                      for item in _whole_set_items("spg-smollm2-checker-off", row["id"], checker_split(row["id"]),
                                                   row["claims_text"], SET_CAP)]
    return items


def _decoded_next_items(path: Path, documents: dict[str, dict], batch: int) -> list[dict]:
    """The next claims of a later batch's output (one per document, k and temperature, read as the first
    batch's), greedy first, then T = 0.7, then T = 1.0, each with its ``batch`` and ``settings``."""
    by_k = {(row["id"], row["k"], row.get("temperature")): row for row in _results(path)}
    items = []
    for t in MORE_TEMPERATURES:
        rows = [row for row in by_k.values() if row.get("temperature") == t]
        decoding = {"decoding": "greedy"} if t is None else {"temperature": t, "seed": SEED}
        items += [item | {"batch": batch, "settings": {"k": item["claim"] - 1, **decoding, "max_new_tokens": 80,
                                                       "batch_size": MORE_BATCH}}
                  for item in next_claim_items(rows, documents)]
    return items


def mixed_items(work: Path, documents: dict[str, dict], batch: int) -> list[dict]:
    """A MIXED batch's items (where WORK holds its outputs), with its ``batch``: the next claims as the second
    batch's, then the dependent claims of the chat model's whole sets (the first SET_CAP of each), T = 0.7, then 1.0."""
    name = MIXED[batch].name
    items = _decoded_next_items(work / f"smollm2_next_{name}.jsonl", documents, batch)
    for t in THIRD_SET_TEMPERATURES:
        for row in _results(work / f"{more_name(f'smollm2_sets_{name}', t)}.jsonl"):
            claims = _whole_set_items("smollm2-zero-shot", row["id"], checker_split(row["id"]), row["claims_text"])
            items += [item | {"batch": batch, "settings": {"temperature": t, "seed": 0, "max_new_tokens": 200,
                                                       "batch_size": MORE_BATCH}}
                      for item in [c for c in claims if not c["independent"]][:SET_CAP]]
    return items


ITEMS = SETS / "llm_claims.jsonl"
RUBRIC = SETS / "llm_claims_rubric.md"
YES_NO = ("yes", "no")
QUESTIONS = ("repetition", "preamble", "error_free")  # the yes/no questions; antecedent is a list of terms
REPETITION_RULES = ("duplicate-claim", "not-further-limiting", "repeated-limitation", "restatement")
PREAMBLE_RULES = ("preamble-mismatch",)

INSTRUCTIONS = """\
# Labelling packet: {n} patent claims

Read `rubric.md` first. `items.jsonl` holds the items, one JSON object per line: `id`, `independent` (true: the
candidate is an independent claim), `context` (the claims it relies on, one per line, each with its number; empty
for some independent claims) and `candidate` (the claim you judge).

Write your answers as a sheet: a JSON Lines file, one line per item, in the order of `items.jsonl`. Start from
`sheet_template.jsonl` (every id, every answer empty) and fill each line:

    {{"id": "L0123456789", "repetition": "no", "preamble": "no", "antecedent": ["the bulb"], "other": "", "error_free": "no"}}

* `repetition`: "yes" or "no"; where `independent` is true, "n/a" unless the candidate repeats a claim of its
  context (then "yes", rubric.md).
* `preamble`: "yes" or "no"; "n/a" where `independent` is true.
* `antecedent`: a list of the candidate's definite terms without antecedent basis, each as written in the candidate
  ("the bulb", "said second solution"); [] when none.
* `other`: a few words, or "".
* `error_free`: "yes" or "no".

Judge each item on its own, from the rubric and the text alone; do not look anything up. Keep every line valid JSON.
"""


def packet(directory: Path, items_path: Path = ITEMS, batch: int | None = None) -> None:
    """What the blind readers get: the rubric, the items (id, whether independent, context, candidate: nothing
    else), an empty sheet and the instructions, in an order shuffled with SEED; only those of ``batch`` where given
    (the first batch's items have no "batch": 1)."""
    items = [row for _, row in jsonl_rows(items_path) if batch is None or row.get("batch", 1) == batch]
    if not items:
        bad(f"{items_path}: no item of batch {batch}; expected a batch the corpus holds (1; 2 after --more, 3 to 8 "
            "after --generate with that --batch)")
    random.Random(SEED).shuffle(items)
    if directory.exists() and any(directory.iterdir()):  # a labeller's sheet may sit there: nothing is written over
        bad(f"{directory}: the folder exists and is not empty; expected a new folder for the packet")
    directory.mkdir(parents=True, exist_ok=True)
    fields = ("id", "independent", "context", "candidate")
    _write_jsonl(directory / "items.jsonl", [{k: item[k] for k in fields} for item in items])
    empty = {"repetition": "", "preamble": "", "antecedent": [], "other": "", "error_free": ""}
    _write_jsonl(directory / "sheet_template.jsonl", [{"id": item["id"], **empty} for item in items])
    (directory / "rubric.md").write_text(RUBRIC.read_text(encoding="utf-8"), encoding="utf-8")
    (directory / "INSTRUCTIONS.md").write_text(INSTRUCTIONS.format(n=len(items)), encoding="utf-8")


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")


def read_sheet(path: Path, items: dict[str, dict]) -> dict[str, dict]:
    """A labeller's sheet by item id, each answer checked against the rubric's form (one line, exit 2, otherwise)."""
    sheet: dict[str, dict] = {}
    for line_no, row in enumerate((row for _, row in jsonl_rows(path)), 1):
        where = f"{path} answer {line_no}"
        if row.get("id") not in items:
            bad(f"{where}: \"id\" {row.get('id')!r} is no item of the corpus")
        if row["id"] in sheet:
            bad(f"{where}: item {row['id']} answered twice")
        independent = items[row["id"]]["independent"]
        for question in QUESTIONS:
            allowed = YES_NO + (("n/a",) if independent and question != "error_free" else ())
            if row.get(question) not in allowed:
                bad(f"{where} ({row['id']}): \"{question}\" must be one of {', '.join(allowed)}, "
                     f"got {row.get(question)!r}")
        terms = row.get("antecedent")
        if not isinstance(terms, list) or not all(isinstance(t, str) for t in terms):
            bad(f"{where} ({row['id']}): \"antecedent\" must be a list of terms (strings)")
        sheet[row["id"]] = row
    return sheet


def kappa(pairs: list[tuple[bool, bool]]) -> float | None:
    """Cohen's kappa of two readers' yes/no answers (scikit-learn's); None where both gave one and the same answer
    throughout: chance agreement is then total and kappa undefined."""
    if len({answer for pair in pairs for answer in pair}) < 2:
        return None
    from sklearn.metrics import cohen_kappa_score

    first, second = zip(*pairs)
    return float(cohen_kappa_score(first, second))


def term_key(term: str) -> str:
    """A definite term as compared between readers and spg: lower case, its "the"/"said" and punctuation off."""
    words = "".join(ch if ch.isalnum() or ch in "-' " else " " for ch in term.lower()).split()
    while words and words[0] in ("the", "said"):
        words = words[1:]
    return " ".join(words)


def item_forest(item: dict):
    """The candidate's claim set as the item shows it: the context, then the candidate, numbered as in the source."""
    from spg.parse import parse_claims

    lines = [line for line in item["context"].split("\n") if line.strip()] + [item["candidate"]]
    return parse_claims([{"num": int(line.split(".", 1)[0]), "text": line} for line in lines])


def candidate_findings(item: dict, **options) -> list:
    """spg lint's findings on the candidate, linted in its claim set (:func:`item_forest`), in-process; ``options``
    go to :func:`spg.lint.lint`."""
    from spg.lint import lint

    return [f for f in lint(item_forest(item), **options).findings if f.claim == item["claim"]]


def _share(hit: int, n: int) -> str:
    return f"{hit}/{n} ({hit / n:.0%})" if n else "0/0"


def score(path_a: Path, path_b: Path, items_path: Path = ITEMS, restatement: str = "rules") -> dict:
    """Agreement between two sheets, their consensus, and spg lint on the consensus by split and by source;
    printed, and returned as numbers (the tests read them). An antecedent warning is real where both readers list
    its term for that candidate (and, the lenient figure, where either does); recall counts the terms both list."""
    items = {item["id"]: item for item in [row for _, row in jsonl_rows(items_path)]}
    a, b = read_sheet(path_a, items), read_sheet(path_b, items)
    both = [i for i in items if i in a and i in b]
    report: dict = {"items": len(both), "agreement": {}}
    print(f"{len(both)} items answered on both sheets ({len(a)} on {path_a.name}, {len(b)} on {path_b.name})")
    for question in QUESTIONS + ("antecedent",):
        if question == "antecedent":  # any term listed
            pairs = [(bool(a[i]["antecedent"]), bool(b[i]["antecedent"])) for i in both]
        else:
            pairs = [(a[i][question] == "yes", b[i][question] == "yes") for i in both
                     if a[i][question] in YES_NO and b[i][question] in YES_NO]
        k = kappa(pairs)
        agree = sum(x == y for x, y in pairs)
        report["agreement"][question] = {"kappa": k, "agree": agree, "n": len(pairs)}
        print(f"  {question}{' (any term)' if question == 'antecedent' else ''}: kappa "
              f"{'n/a' if k is None else f'{k:.2f}'}, agreeing {_share(agree, len(pairs))}")
    terms_a = {(i, term_key(t)) for i in both for t in a[i]["antecedent"]}
    terms_b = {(i, term_key(t)) for i in both for t in b[i]["antecedent"]}
    print(f"  antecedent terms: {len(terms_a & terms_b)} listed by both of {len(terms_a | terms_b)} listed")
    consensus_terms = terms_a & terms_b
    groups: dict[tuple[str, str], dict] = {}
    for i in both:
        item, found = items[i], candidate_findings(items[i], restatement=restatement)
        rules = {f.rule for f in found}
        warned = {(i, term_key(f.term)) for f in found if f.rule == "antecedent" and f.severity == "warning" and f.term}
        agreed = {q for q in QUESTIONS if a[i][q] == b[i][q] == "yes"}
        flagged = bool(rules & {*REPETITION_RULES, *PREAMBLE_RULES}) or bool(warned)
        mine = {t for t in consensus_terms if t[0] == i}
        for key in (("split", item["split"]), ("source", item["source"]), ("all", "all")):
            g = groups.setdefault(key, {k: [0, 0] for k in ("repetition", "preamble", "error_free")}
                                  | {"warnings": 0, "warnings_real": 0, "warnings_either": 0, "terms": 0,
                                     "terms_found": 0})
            for question, hit in (("repetition", bool(rules & set(REPETITION_RULES))),
                                  ("preamble", bool(rules & set(PREAMBLE_RULES))), ("error_free", flagged)):
                if question in agreed:
                    g[question][0] += hit
                    g[question][1] += 1
            g["warnings"] += len(warned)
            g["warnings_real"] += len(warned & mine)
            g["warnings_either"] += len(warned & (terms_a | terms_b))
            g["terms"] += len(mine)
            g["terms_found"] += len(mine & warned)
    report["lint"] = {f"{kind}:{name}": g for (kind, name), g in groups.items()}
    print("spg lint on the consensus (items both readers answer yes; antecedent: terms both list)")
    print("  group | repetition found | preamble found | error-free flagged | antecedent precision (both; either "
          "reader) | recall")
    for (kind, name), g in sorted(groups.items(), key=lambda kv: (kv[0][0] != "all", kv[0])):
        print(f"  {kind} {name} | {_share(*g['repetition'])} | {_share(*g['preamble'])} | {_share(*g['error_free'])}"
              f" | {_share(g['warnings_real'], g['warnings'])}; {_share(g['warnings_either'], g['warnings'])}"
              f" | {_share(g['terms_found'], g['terms'])}")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--generate", type=Path, metavar="WORK", help="run the models, writing WORK/*.jsonl")
    parser.add_argument("--budget-s", type=float, default=2400, help="--generate: wall seconds at most (default 2400)")
    parser.add_argument("--more", action="store_true", help="--generate: the second batch (train and dev documents)")
    parser.add_argument("--build", action="store_true", help=f"write {ITEMS.relative_to(REPO)} from the sources")
    parser.add_argument("--generated", type=Path, default=SETS / "llm_claims_generated",
                        help="--build: the --generate folder to read (default: the committed one)")
    parser.add_argument("--packet", type=Path, metavar="DIR", help="write the blind readers' packet into DIR")
    parser.add_argument("--batch", type=int, choices=(1, 2, *MIXED),
                        help="--generate: that batch (2 is --more); --packet: only the items of this batch")
    parser.add_argument("--score", type=Path, nargs=2, metavar=("SHEET_A", "SHEET_B"), help="score two sheets")
    parser.add_argument("--items", type=Path, default=ITEMS, help="the corpus (default: %(default)s)")
    parser.add_argument("--restatement", choices=("rules", "read"), default="rules",
                        help="--score: lint with the restatement reader too (spg lint --restatement read)")
    args = parser.parse_args()
    if args.generate:
        batch = 2 if args.more else args.batch or 1
        if batch in MIXED:
            generate_mixed(args.generate, args.budget_s, batch)
        else:
            {1: generate, 2: generate_more}[batch](args.generate, args.budget_s)
    if args.build:
        items = build(args.generated, args.items)
        print(f"{len(items)} items -> {args.items}")
        counts = Counter((item["source"], item.get("batch", 1), item["split"]) for item in items)
        for source, batch in dict.fromkeys((item["source"], item.get("batch", 1)) for item in items):
            print(f"| {source}{'' if batch == 1 else f' (batch {batch})'} | "
                  + " | ".join(str(counts[source, batch, side]) for side in NEXT_DOCS)
                  + f" | {sum(counts[source, batch, side] for side in NEXT_DOCS)} |")
    if args.packet:
        packet(args.packet, args.items, args.batch)
    if args.score:
        score(*args.score, args.items, args.restatement)


if __name__ == "__main__":
    main()
