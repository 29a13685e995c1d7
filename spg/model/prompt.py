"""The chat prompt around a description (paper appendix "Prompts"): the model's chat template around "instruction,
blank line, description", the description cut so the prompt fits its token budget. No torch here: ``spg generate``
counts the template's tokens with the tokenizer alone, before any weights load (spg.generation.prompts)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spg.config import Invalid
from spg.model.config import INSTRUCTION, TRUNCATION_SIDES

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

_PLACEHOLDER = "\u2063SPG-DESCRIPTION\u2063"


def build_prompt(
    tokenizer: PreTrainedTokenizerBase,
    description: str,
    max_tokens: int,
    instruction: str = INSTRUCTION,
    truncation_side: str = "right",
) -> list[int]:
    """Token ids of the chat prompt (generation prompt included), the description cut to fit ``max_tokens``
    (its end cut for ``truncation_side="right"``, its start for ``"left"``)."""
    if truncation_side not in TRUNCATION_SIDES:
        raise ValueError(f"description truncation side must be one of {TRUNCATION_SIDES}, got {truncation_side!r}")
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
    # stripped here, for training and generation alike: a description file's final newline must not make the
    # prompt a model is asked with differ from the one it was trained on
    body = tokenizer.encode(description.strip(), add_special_tokens=False)
    body = body[:budget] if truncation_side == "right" else body[max(len(body) - budget, 0):]
    return head_ids + body + tail_ids


def prompt_frame(tokenizer: PreTrainedTokenizerBase, instruction: str = INSTRUCTION) -> int:
    """Tokens the chat template and instruction take around the description."""
    return len(build_prompt(tokenizer, "", 1 << 30, instruction))


def check_room(model: str, max_prompt_tokens: int, frame: int) -> None:
    """``max_prompt_tokens`` leaves at least one token of description after ``model``'s chat template and
    instruction (``frame`` tokens)."""
    if max_prompt_tokens <= frame:
        raise Invalid(
            "max_prompt_tokens",
            f"{max_prompt_tokens} leaves no room for the description: the chat template and instruction of "
            f"{model} take {frame} tokens; expected more than {frame}",
        )
