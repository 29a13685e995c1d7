"""Stage I examples: chat prompt + serialised forest, with the structure positions the auxiliary losses read.

An example is the prompt (the model's chat template around an instruction and the description) followed
by the target (the Eq. 1 sequence, or plain numbered claims for the "Baseline" ablation). Labels cover
the target only. For each complete claim of the target the example carries the position of its opening
tag, of its closing tag, the span of its text, its gold parent (claim index, −1 for roots), depth and
tree id.

Truncation (issue: a target cut mid-claim teaches the model never to stop). The target gets at most
``max_target_tokens`` tokens (None: no cap, as in the paper, which caps only the 8,192-token context);
``target_truncation`` says how a longer target is cut:

* ``"claims"``: keep the longest prefix of whole claims (in serialisation order, so every kept dependent's
  parent is kept) that fits, and end it as a whole claim set ends (``<eot>``; eos for plain claims). The
  model still learns to stop. Not in the paper, which never cuts a target.
* ``"tokens"``: cut at the token budget, mid-claim (the end marker is lost).

The description is then cut so that prompt + target fit ``max_length``: its end
(``description_truncation_side: right``) or its start (``left``: the paper, "inputs exceeding this limit
are truncated from the left").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from transformers import PreTrainedTokenizerBase

from spg.forest import Forest
from spg.linearize import DEP, DEP_END, IND, IND_END, Serialized, canonical, linearize
from spg.model.config import INSTRUCTION, TARGET_TRUNCATIONS  # noqa: F401 (INSTRUCTION: re-exported)
from spg.model.prompt import build_prompt, prompt_frame
from spg.model.tokens import structure_token_ids
from spg.render import render

CLAIM_FIELDS = ("claim_open", "claim_close", "claim_start", "claim_end", "claim_parent", "claim_depth", "claim_tree")


def _target_ids(tokenizer: PreTrainedTokenizerBase, forest: Forest, tagged: bool) -> list[int]:
    if tagged:
        return tokenizer.encode(linearize(forest).text, add_special_tokens=False)
    # Plain claims have no <eot>: eos marks the end, so the model learns to stop.
    return tokenizer.encode(render(forest), add_special_tokens=False) + [tokenizer.eos_token_id]


def claim_prefix(forest: Forest, count: int) -> Forest:
    """The first ``count`` claims in serialisation order, renumbered 1..count: a forest, since parents precede."""
    return Forest.from_claims(canonical(forest).claims[:count])


def fit_target(
    tokenizer: PreTrainedTokenizerBase, forest: Forest, cap: int | None, tagged: bool, truncation: str = "claims"
) -> tuple[list[int], Forest]:
    """Target ids of at most ``cap`` tokens under the ``truncation`` policy, and the forest they encode
    (all of ``forest``, or the whole-claim prefix that fits; see the module docstring)."""
    if truncation not in TARGET_TRUNCATIONS:
        raise ValueError(f"target_truncation must be one of {TARGET_TRUNCATIONS}, got {truncation!r}")
    full = _target_ids(tokenizer, forest, tagged)
    if cap is None or len(full) <= cap:
        return full, forest
    if truncation == "claims":
        # Target length grows with the number of claims kept: binary search for the most that fit.
        low, high = 0, len(canonical(forest).claims) - 1
        while low < high:
            mid = (low + high + 1) // 2
            if len(_target_ids(tokenizer, claim_prefix(forest, mid), tagged)) <= cap:
                low = mid
            else:
                high = mid - 1
        if low:
            prefix = claim_prefix(forest, low)
            return _target_ids(tokenizer, prefix, tagged), prefix
    # "tokens", or not even the first claim fits: cut mid-claim.
    return full[:cap], forest


def build_example(
    tokenizer: PreTrainedTokenizerBase,
    description: str,
    forest: Forest,
    max_length: int,
    max_target_tokens: int | None,
    tagged: bool = True,
    instruction: str = INSTRUCTION,
    target_truncation: str = "claims",
    description_truncation_side: str = "left",
) -> dict[str, list[int]]:
    """One training example: input_ids, labels and the per-claim fields of :data:`CLAIM_FIELDS`.

    ``claims_dropped`` (an int, not a tensor field) counts the gold claims a whole-claim cut left out.
    """
    cap = max_length - prompt_frame(tokenizer, instruction)
    cap = cap if max_target_tokens is None else min(cap, max_target_tokens)
    target, kept = fit_target(tokenizer, forest, cap, tagged, target_truncation)
    serial = linearize(kept) if tagged else None
    prompt = build_prompt(tokenizer, description, max_length - len(target), instruction, description_truncation_side)
    example = {"input_ids": prompt + target, "labels": [-100] * len(prompt) + target}
    claims = _claim_fields(tokenizer, target, len(prompt), serial) if serial else {}
    example.update({name: claims.get(name, []) for name in CLAIM_FIELDS})
    example["claims_dropped"] = len(forest.claims) - len(kept.claims)
    return example


def _claim_fields(tokenizer, target: list[int], offset: int, serial: Serialized) -> dict[str, list[int]]:
    """Positions of each complete claim's tags in the full sequence, plus its gold parent, depth and tree."""
    ids = structure_token_ids(tokenizer)
    openers, closers = {ids[IND], ids[DEP]}, {ids[IND_END], ids[DEP_END]}
    spans: list[tuple[int, int]] = []
    start = None
    for pos, tok in enumerate(target):
        if tok in openers:
            start = pos
        elif tok in closers and start is not None:
            spans.append((start, pos))
            start = None
    # A target cut at max_target_tokens keeps only its complete claims; they are a prefix of the forest,
    # so every kept dependent's parent (which precedes it) is kept too.
    n = len(spans)
    if n > len(serial.claims):
        raise ValueError(f"target has {n} tagged claims but the forest has {len(serial.claims)}: a claim text "
                         "contains a structure tag")
    return {
        "claim_open": [offset + s for s, _ in spans],
        "claim_close": [offset + e for _, e in spans],
        "claim_start": [offset + s + 1 for s, _ in spans],
        "claim_end": [offset + e for _, e in spans],
        "claim_parent": [-1 if p is None else p for p in serial.parents[:n]],
        "claim_depth": serial.depths[:n],
        "claim_tree": serial.trees[:n],
    }


@dataclass
class Collator:
    """Right-pads a list of examples into tensors; claim fields are padded to the most claims in the batch.

    Right padding keeps every stored position valid. ``claim_mask`` marks real claims.
    """

    pad_token_id: int

    def __call__(self, examples: Sequence[dict[str, list[int]]]) -> dict[str, torch.Tensor]:
        length = max(len(e["input_ids"]) for e in examples)
        claims = max((len(e["claim_open"]) for e in examples), default=0)
        batch = {
            "input_ids": _pad([e["input_ids"] for e in examples], length, self.pad_token_id),
            "attention_mask": _pad([[1] * len(e["input_ids"]) for e in examples], length, 0),
            "labels": _pad([e["labels"] for e in examples], length, -100),
            "claim_mask": _pad([[1] * len(e["claim_open"]) for e in examples], claims, 0).bool(),
        }
        for name in CLAIM_FIELDS:
            batch[name] = _pad([e[name] for e in examples], claims, -1 if name == "claim_parent" else 0)
        return batch


def _pad(rows: Sequence[Sequence[int]], length: int, value: int) -> torch.Tensor:
    return torch.tensor([list(r) + [value] * (length - len(r)) for r in rows], dtype=torch.long)
