"""Stage I examples: chat prompt + serialised forest, with the structure positions the auxiliary losses read.

An example is the prompt (the model's chat template around an instruction and the description) followed
by the target (the Eq. 1 sequence, or plain numbered claims for the "Baseline" ablation). Labels cover
the target only. For each complete claim of the target the example carries the position of its opening
tag, of its closing tag, the span of its text, its gold parent (claim index, −1 for roots), depth and
tree id. The description is truncated (its end is cut) so that prompt + target fit ``max_length``,
with the target given at most ``max_target_tokens`` (paper: 8,192 context, 1,024 target, 7,168 prompt).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from transformers import PreTrainedTokenizerBase

from spg.forest import Forest
from spg.linearize import DEP, DEP_END, IND, IND_END, linearize
from spg.model.tokens import structure_token_ids
from spg.render import render

INSTRUCTION = (
    "Draft the patent claims for the invention described below. Write every independent claim and its "
    "dependent claims; each dependent claim refers back to the claim it narrows."
)
_PLACEHOLDER = "\u2063SPG-DESCRIPTION\u2063"
CLAIM_FIELDS = ("claim_open", "claim_close", "claim_start", "claim_end", "claim_parent", "claim_depth", "claim_tree")


def build_prompt(
    tokenizer: PreTrainedTokenizerBase, description: str, max_tokens: int, instruction: str = INSTRUCTION
) -> list[int]:
    """Token ids of the chat prompt (generation prompt included), the description cut to fit ``max_tokens``."""
    rendered = tokenizer.apply_chat_template(
        [{"role": "user", "content": f"{instruction}\n\n{_PLACEHOLDER}"}], tokenize=False, add_generation_prompt=True
    )
    head, tail = rendered.split(_PLACEHOLDER)
    head_ids = tokenizer.encode(head, add_special_tokens=False)
    tail_ids = tokenizer.encode(tail, add_special_tokens=False)
    budget = max_tokens - len(head_ids) - len(tail_ids)
    if budget < 0:
        raise ValueError(f"max prompt length {max_tokens} is shorter than the chat template and instruction "
                         f"({len(head_ids) + len(tail_ids)} tokens)")
    return head_ids + tokenizer.encode(description, add_special_tokens=False)[:budget] + tail_ids


def target_text(forest: Forest, tagged: bool = True) -> str:
    """The training target: the Eq. 1 sequence, or numbered plain claims (the "Baseline" ablation)."""
    return linearize(forest).text if tagged else render(forest)


def build_example(
    tokenizer: PreTrainedTokenizerBase,
    description: str,
    forest: Forest,
    max_length: int,
    max_target_tokens: int,
    tagged: bool = True,
    instruction: str = INSTRUCTION,
) -> dict[str, list[int]]:
    """One training example: input_ids, labels and the per-claim fields of :data:`CLAIM_FIELDS`."""
    serial = linearize(forest) if tagged else None
    target = tokenizer.encode(serial.text if serial else render(forest), add_special_tokens=False)
    if not tagged:
        target.append(tokenizer.eos_token_id)  # plain claims have no <eot>: the model must learn to stop
    target = target[:max_target_tokens]
    prompt = build_prompt(tokenizer, description, max_length - len(target), instruction)
    example = {"input_ids": prompt + target, "labels": [-100] * len(prompt) + target}
    claims = _claim_fields(tokenizer, target, len(prompt), serial) if serial else {}
    example.update({name: claims.get(name, []) for name in CLAIM_FIELDS})
    return example


def _claim_fields(tokenizer, target: list[int], offset: int, serial) -> dict[str, list[int]]:
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
