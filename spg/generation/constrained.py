"""Structure-constrained decoding: every output is a valid claim forest.

Goes beyond the paper, which reports a valid rate below 100 %. The forest grammar (Eq. 1)::

    forest := tree (<sep> tree)* <eot>
    tree   := <ind> text </ind> (<dep> text </dep>)*

is a small automaton over the six structure tokens. :class:`StructureLogitsProcessor` keeps one
automaton state per batch row and, at each step, masks every token that would leave the grammar or
could no longer reach ``<eot>`` within ``max_new_tokens``. The per-token work is table lookups on
tensors (no Python loop over rows or the vocabulary), so the cost per step is one gather and one
``masked_fill``.

Two choices keep "valid" exact rather than likely:

* claim text must contain a non-blank character before its closing tag (no empty claims);
* text tokens containing ``<`` are masked, so ordinary tokens can never spell a tag string such as
  "<dep>" or a model token such as "<|eot_id|>" that the parser would read as structure.
  Claims that need the symbol write "less than".
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from transformers import LogitsProcessor, PreTrainedTokenizerBase

from spg.linearize import DEP, DEP_END, EOT, IND, IND_END, SEP

# Automaton states.
EXPECT_IND, IND_EMPTY, IND_TEXT, DEP_EMPTY, DEP_TEXT, CLOSED, DONE = range(7)
# Token classes.
TEXT, BLANK, T_IND, T_IND_END, T_DEP, T_DEP_END, T_SEP, T_EOT, STOP, FORBIDDEN = range(10)
_TAG_CLASSES = {IND: T_IND, IND_END: T_IND_END, DEP: T_DEP, DEP_END: T_DEP_END, SEP: T_SEP, EOT: T_EOT}

# TRANSITIONS[state][token class] -> next state; missing entries are not allowed in that state.
TRANSITIONS: dict[int, dict[int, int]] = {
    EXPECT_IND: {T_IND: IND_EMPTY},
    IND_EMPTY: {TEXT: IND_TEXT, BLANK: IND_EMPTY},
    IND_TEXT: {TEXT: IND_TEXT, BLANK: IND_TEXT, T_IND_END: CLOSED},
    DEP_EMPTY: {TEXT: DEP_TEXT, BLANK: DEP_EMPTY},
    DEP_TEXT: {TEXT: DEP_TEXT, BLANK: DEP_TEXT, T_DEP_END: CLOSED},
    CLOSED: {T_DEP: DEP_EMPTY, T_SEP: EXPECT_IND, T_EOT: DONE},
    DONE: {STOP: DONE, T_EOT: DONE},  # finished rows of a batch keep emitting pad (or <eot> without pad)
}
# Fewest tokens that finish the forest (through <eot>) from each state.
TOKENS_TO_FINISH = {EXPECT_IND: 4, IND_EMPTY: 3, IND_TEXT: 2, DEP_EMPTY: 3, DEP_TEXT: 2, CLOSED: 1, DONE: 0}


@dataclass(frozen=True)
class StructureGrammar:
    """The token classes of one tokenizer. Build once per tokenizer; it decodes the whole vocabulary."""

    token_class: torch.Tensor  # (vocab,) long

    @classmethod
    def from_tokenizer(cls, tokenizer: PreTrainedTokenizerBase, vocab_size: int | None = None) -> StructureGrammar:
        """``vocab_size``: the model's logits width, which may exceed ``len(tokenizer)`` (padded embeddings)."""
        size = max(vocab_size or 0, len(tokenizer))
        ids = {tag: tokenizer.convert_tokens_to_ids(tag) for tag in _TAG_CLASSES}
        missing = [tag for tag, i in ids.items() if i is None or i == tokenizer.unk_token_id]
        if missing:
            raise ValueError(
                f"tokenizer has no structure tokens {missing}: constrained decoding needs an SPG tokenizer "
                "(spg.model.tokens adds them); use --no-constrained for zero-shot chat models"
            )
        pieces = vocabulary_pieces(tokenizer)
        classes = [BLANK if not p.strip() else FORBIDDEN if "<" in p else TEXT for p in pieces]
        classes += [FORBIDDEN] * (size - len(classes))
        for special in tokenizer.all_special_ids:
            classes[special] = FORBIDDEN
        for tag, i in ids.items():
            classes[i] = _TAG_CLASSES[tag]
        for stop in stop_token_ids(tokenizer):
            if classes[stop] == FORBIDDEN:
                classes[stop] = STOP
        return cls(torch.tensor(classes, dtype=torch.long))


def vocabulary_pieces(tokenizer: PreTrainedTokenizerBase) -> list[str]:
    """Every token id decoded alone. The ``tokenizers``-library class decodes like its Rust tokenizer, which does
    the whole vocabulary in one call: 0.1 s for SmolLM2's 49k ids against 0.3 s id by id (part of every start-up,
    docs/generation.md); any other class through its own ``decode``."""
    from transformers.tokenization_utils_tokenizers import PreTrainedTokenizerFast

    ids = [[i] for i in range(len(tokenizer))]
    if type(tokenizer) is PreTrainedTokenizerFast:
        return tokenizer.backend_tokenizer.decode_batch(ids, skip_special_tokens=False)
    return tokenizer.batch_decode(ids, clean_up_tokenization_spaces=False)


def stop_token_ids(tokenizer: PreTrainedTokenizerBase) -> list[int]:
    """Tokens that may follow ``<eot>``: eos and pad (finished rows of a batch emit pad)."""
    return sorted({i for i in (tokenizer.eos_token_id, tokenizer.pad_token_id) if i is not None})


def _allowed_table(token_class: torch.Tensor, remaining: int) -> torch.Tensor:
    """(states, vocab) bool: which tokens each state may emit with ``remaining`` steps left (this one included)."""
    by_class = torch.zeros(len(TRANSITIONS), FORBIDDEN + 1, dtype=torch.bool, device=token_class.device)
    for state, moves in TRANSITIONS.items():
        for cls, nxt in moves.items():
            by_class[state, cls] = TOKENS_TO_FINISH[nxt] <= remaining - 1
    return by_class[:, token_class]


def _transition_table() -> torch.Tensor:
    """(states, classes) long: the next state; disallowed moves keep the state (they are never sampled)."""
    table = torch.arange(len(TRANSITIONS)).unsqueeze(1).repeat(1, FORBIDDEN + 1)
    for state, moves in TRANSITIONS.items():
        for cls, nxt in moves.items():
            table[state, cls] = nxt
    return table


class StructureLogitsProcessor(LogitsProcessor):
    """Masks the logits so each row's generation stays a prefix of a valid forest and ends within budget.

    One instance per ``generate`` call (it remembers the prompt length to count the steps left). Each row's state is
    kept per generated position and read from the tokens it is called with, not from how often it was called:
    assisted generation (``prompt_lookup_tokens``) calls it on drafted tokens, some of which it then drops, and
    calls it again on a shorter sequence.
    """

    def __init__(self, grammar: StructureGrammar, max_new_tokens: int, start: int = EXPECT_IND):
        """``start``: the state the generated tokens begin in: ``CLOSED`` where the prompt ends with whole claims of the
        forest (a redraw continues after them: spg.generation.redraw)."""
        if max_new_tokens < TOKENS_TO_FINISH[EXPECT_IND]:
            raise ValueError(f"max_new_tokens={max_new_tokens}: a forest needs at least 4 tokens")
        self.token_class = grammar.token_class
        self.max_new_tokens = max_new_tokens
        self.start = start
        self.transitions = _transition_table()
        self._tables: dict[tuple[int, int], torch.Tensor] = {}
        self.prompt_length: int | None = None
        self.states: torch.Tensor | None = None  # (rows, max_new_tokens + 1): the state after g generated tokens

    def _masks(self, remaining: int, width: int) -> torch.Tensor:
        """(states, width) float: 0 where a state may emit a token with ``remaining`` steps left, −inf elsewhere
        (and on the ids of logits wider than the tokenizer)."""
        # Budget only bites in the last few steps; every earlier step shares one table.
        key = (min(remaining, TOKENS_TO_FINISH[EXPECT_IND] + 1), width)
        if key not in self._tables:
            allowed = _allowed_table(self.token_class, key[0])[:, :width]
            allowed = torch.nn.functional.pad(allowed, (0, width - allowed.shape[-1]))
            self._tables[key] = torch.zeros(allowed.shape, device=allowed.device).masked_fill(~allowed, float("-inf"))
        return self._tables[key]

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        device = scores.device
        if self.prompt_length is None:
            self.prompt_length = input_ids.shape[1]
            self.states = torch.full((input_ids.shape[0], self.max_new_tokens + 1), self.start, dtype=torch.long,
                                     device=device)
            self.token_class = self.token_class.to(device)
            self.transitions = self.transitions.to(device)
        generated = input_ids.shape[1] - self.prompt_length
        remaining = self.max_new_tokens - generated
        if generated:  # the state before the last token was computed from the same tokens (they precede it)
            last_class = self.token_class[input_ids[:, -1]]
            self.states[:, generated] = self.transitions[self.states[:, generated - 1], last_class]
        return scores + self._masks(remaining, scores.shape[-1])[self.states[:, generated]].to(scores.dtype)
