"""Pointer-augmented generation (paper §3.1 "Pointer-based parent selection", inference).

At every generated ``<dep>`` the pointer picks the claim's parent among the earlier claims of the
same tree, from the hidden states of **the same generation pass**: :class:`StateRecorder` copies the
last-layer state of every token fed to the model during ``generate`` (``SPGModel.last_hidden_state``, set
by a hook on the output embedding's input) into one preallocated buffer, so no second forward pass over
the output is needed. The state of generated token ``g`` is produced at decoding step ``g + 1``, when
``g`` is fed back as input: exactly the state a teacher-forced pass computes at position ``g`` (the
pointer is trained on those). The chosen parent is not rendered into later tokens (the model writes "of
claim N" itself), so reading it after ``generate`` returns is exact.

Decoding speed (docs/generation.md, "Throughput"): nothing here makes the host wait for the device during
a step (every tensor a processor needs is moved to the device once), and on CUDA a static KV cache lets
transformers compile the decoding step into CUDA graphs (``cache_implementation: auto``, :func:`kv_cache`).

The pointer is decoded greedily (argmax of Eq. 2 over the candidate set A(i)).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
from transformers import (
    LogitsProcessor,
    LogitsProcessorList,
    PreTrainedTokenizerBase,
    StoppingCriteria,
    StoppingCriteriaList,
)
from transformers.generation import utils as generation_utils

from spg.generation.boundary import BoundaryTemperature
from spg.generation.config import DecodeSettings
from spg.generation.constrained import CLOSED, EXPECT_IND, StructureLogitsProcessor
from spg.generation.drafts import drafting
from spg.generation.kv_cache import ReservedCache
from spg.generation.redraw import Budget, Claims, ClaimStop, phrase_end_ids, redraw_key, settle
from spg.generation.repetition import GeneratedNoRepeatNGram, NoRepeatedLimitation, limitation_tokens
from spg.generation.request import DecodeRequest
from spg.generation.sampling import PositionalSampling
from spg.linearize import DEP, DEP_END, EOT, IND, IND_END, SEP
from spg.model.pointer import candidate_mask, greedy_parents
from spg.model.spg_model import SPGModel
from spg.model.tokens import structure_token_ids

if TYPE_CHECKING:  # transformers' model code (modeling_utils: 1-2 s of imports) only where a model is built
    from transformers import PreTrainedModel

# (h_dep: (k, d), h_end: (m, d)) -> (k, m) compatibility scores, e.g. the bilinear h_dep W_dep h_endᵀ of Eq. 2.
PointerScorer = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


@dataclass(frozen=True)
class Generated:
    """One row's output: generated ids (stop token kept, padding dropped), text, and pointer parents."""

    ids: list[int]
    text: str
    parents: list[int | None] | None  # per closed claim: serialisation index of the parent; None = no pointer run
    redraws: int = 0  # claims the checker rolled back and drew again (spg.generation.redraw)
    ended_by_checker: bool = False  # the redraw budget ran out: the output ends at its last good claim


class StateRecorder(LogitsProcessor):
    """Keeps the state of every generated token fed back during one ``generate`` call: ``states()[:, g]`` is
    generated token ``g``'s (the prompt's forward computes none; the last generated token is never fed back).

    It reads ``spg.last_hidden_state`` in a logits processor, i.e. after each forward and before the next, and
    copies the state the logits it is called with come from into a buffer allocated once: under CUDA graphs a
    forward's outputs live in memory that the next replay overwrites, so a hook inside the compiled step cannot keep
    them, and appending to a Python list there would make the compiler re-trace at every step. The copy is a device
    operation: the host never waits for it.

    Positions come from the tokens it is called with, so assisted generation (``prompt_lookup_tokens``) records the
    same states. Its forward checks several drafted tokens at once and calls the processors once for each of the
    forward's last positions, in order, the last call with the whole sequence; how many states the forward returned
    depends on the model (all of the prompt's at the first forward on ONNX Runtime, one per logit kept on a
    transformers model). So the states of a forward over several positions are copied when it is done with (the next
    forward, or :meth:`states`), counted back from its last call; a drafted token that was dropped is written over
    when its position is decoded again. transformers' own prompt lookup also calls the processors on drafts before
    the forward that checks them, which this reading would take for calls of the previous forward: spg drafts with
    spg.generation.drafts, which does not.
    """

    def __init__(self, spg: SPGModel, max_new_tokens: int):
        self.spg = spg
        self.max_new_tokens = max_new_tokens
        self.buffer: torch.Tensor | None = None
        self.prompt_length: int | None = None
        self.recorded = 0  # states of generated tokens 0 .. recorded − 1 are in the buffer
        self._forward: torch.Tensor | None = None  # the latest forward over several positions ...
        self._lengths: list[int] = []  # ... and the lengths of the ids the processors were called with after it
        spg.last_hidden_state = None  # an earlier call's states are not this one's

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        length = input_ids.shape[1]  # these logits come from the state of the token at length − 1
        if self.prompt_length is None:
            self.prompt_length = length
        hidden = self.spg.last_hidden_state
        if hidden is None:
            return scores
        if self.buffer is None:  # the prefill: allocated once
            # the last generated token is never fed back: at most max_new_tokens − 1 states
            self.buffer = hidden.new_empty(hidden.shape[0], max(self.max_new_tokens - 1, 0), hidden.shape[-1])
        if hidden is not self._forward:  # a new forward: the one before is done with (its drafts are older)
            self._copy_forward()
        if hidden.shape[1] == 1:  # a step's own token (compiled steps reuse one output tensor: copy it now)
            self._record(length, hidden[:, 0])
        else:
            self._forward = hidden
            self._lengths.append(length)
        return scores

    def _copy_forward(self) -> None:
        """The states of the latest forward over several positions: its last call had the whole sequence, whose last
        position is the forward's last state."""
        if self._forward is not None and self._lengths:
            end, width = max(self._lengths), self._forward.shape[1]
            for length in self._lengths:
                row = width - 1 - (end - length)
                if row >= 0:
                    self._record(length, self._forward[:, row])
        self._forward, self._lengths = None, []

    def _record(self, length: int, state: torch.Tensor) -> None:
        generated = length - 1 - self.prompt_length  # the prompt's last state (−1) belongs to no generated token
        if 0 <= generated < self.buffer.shape[1]:
            self.buffer[:, generated] = state
            self.recorded = max(self.recorded, generated + 1)

    def states(self, generated: int | None = None) -> torch.Tensor:
        """The states of the first ``generated`` − 1 generated tokens (default: all recorded); drafts that assisted
        generation dropped past the end are not among them."""
        if self.buffer is None:
            raise RuntimeError("StateRecorder.states() before generate ran")
        self._copy_forward()
        count = self.recorded if generated is None else min(self.recorded, max(generated - 1, 0))
        return self.buffer[:, :count]


@dataclass(frozen=True)
class TaggedClaim:
    kind: str  # "ind" | "dep"
    tree: int
    open_pos: int
    close_pos: int


def tagged_claims(ids: Sequence[int], tags: dict[str, int]) -> list[TaggedClaim]:
    """Claims of a generated tag sequence, counted exactly as :func:`spg.linearize.parse_tagged` counts them.

    A claim exists once a closing tag matches the open claim; trees advance at ``<sep>`` and at an
    ``<ind>`` in a tree that already has a root; reading stops at ``<eot>``.
    """
    kind_of = {tags[IND]: "ind", tags[DEP]: "dep"}
    closes = {tags[IND_END]: "ind", tags[DEP_END]: "dep"}
    claims: list[TaggedClaim] = []
    tree, has_root, open_kind, open_pos = 0, False, None, -1
    for pos, tok in enumerate(ids):
        if tok == tags[EOT]:
            break
        if tok in kind_of:
            kind = kind_of[tok]
            if kind == "ind" and has_root:
                tree += 1
            has_root = has_root or kind == "ind"
            open_kind, open_pos = kind, pos
        elif tok in closes and closes[tok] == open_kind:
            claims.append(TaggedClaim(open_kind, tree, open_pos, pos))
            open_kind = None
        elif tok == tags[SEP]:
            tree, has_root = tree + 1, False
    return claims


def pointer_parents(
    ids: Sequence[int], states: torch.Tensor, tags: dict[str, int], pointer: PointerScorer, query: str = "open"
) -> list[int | None]:
    """Greedy Eq. 2 for each dependent claim: argmax over the closing-tag states of earlier claims of its tree.

    ``states[g]`` is the state of generated token ``g`` (the last generated token has none). The query is the
    claim's ``<dep>`` state, or its closing tag's under ``query="close"`` (``pointer_query``). A dependent claim
    with no candidate, or whose query token has no state, gets None.
    """
    claims = tagged_claims(ids, tags)
    if not claims or not len(states):
        return [None] * len(claims)
    last = len(states) - 1
    has_end = torch.tensor([c.close_pos <= last for c in claims])
    query_pos = [c.open_pos if query == "open" else c.close_pos for c in claims]
    asks = torch.tensor([c.kind == "dep" and pos <= last for c, pos in zip(claims, query_pos, strict=True)])
    trees = torch.tensor([c.tree for c in claims])
    mask = candidate_mask(trees, torch.ones_like(has_end)) & has_end[None, :] & asks[:, None]
    with torch.no_grad():
        scores = pointer(
            states[[min(pos, last) for pos in query_pos]], states[[min(c.close_pos, last) for c in claims]]
        )
    choice = greedy_parents(scores.float().cpu().masked_fill(~mask, float("-inf")))
    return [int(j) if j >= 0 else None for j in choice]


class InOrder(LogitsProcessor):
    """``processors`` called one after the other, as one processor. Hand-written because transformers'
    LogitsProcessorList reads each processor's signature (``inspect.signature``) at every call: ~0.06 ms each, for
    five or six processors at every position a forward checks (six positions with prompt lookup's drafts), a fifth of
    the processors' time on the 2-core CPU (docs/generation.md, "Checker in the loop"). spg's processors take no
    keyword arguments."""

    def __init__(self, processors: Sequence[LogitsProcessor]):
        self.processors = processors

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        for processor in self.processors:
            scores = processor(input_ids, scores)
        return scores


def left_pad(prompts: Sequence[Sequence[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(p) for p in prompts)
    ids = torch.tensor([[pad_id] * (width - len(p)) + list(p) for p in prompts])
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
    return ids, mask


def _stop_ids(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, tagged: bool) -> list[int]:
    configured = model.generation_config.eos_token_id
    configured = configured if isinstance(configured, list) else [configured]
    ids = {i for i in [*configured, tokenizer.eos_token_id] if i is not None}
    if tagged:
        ids.add(tokenizer.convert_tokens_to_ids(EOT))
    return sorted(ids)


# Where transformers compiles the decoding step of a static cache (GenerationMixin._valid_auto_compile_criteria).
COMPILED_DEVICES = ("cuda", "xpu", "neuron", "tpu")


def kv_cache(settings: DecodeSettings, device_type: str) -> str:
    """The KV cache ``generate`` uses on ``device_type``: ``auto`` is ``static`` where transformers compiles the
    decoding step (``compile`` on an accelerator), ``dynamic`` elsewhere.

    A static cache without compilation gains nothing (measured on the CPU) and can cost: transformers sizes each
    call's static cache to the longest prompt of any earlier call (so that a compiled step is never re-traced), so a
    short batch after a long one attends over thousands of empty slots (about 1.5x the time on the CPU:
    benchmarks/investigations/static_cache_sizing.py).
    """
    setting = settings.cache_implementation
    if setting == "auto":
        return "static" if settings.compiled and device_type in COMPILED_DEVICES else "dynamic"
    if setting not in ("static", "dynamic"):
        raise ValueError(f"cache_implementation must be auto, static or dynamic, got {setting!r}")
    return setting


# Drafted tokens are copied after the latest earlier occurrence of the last this-many tokens (shorter n-grams when none
# occurred: spg.generation.drafts); 3 kept more drafts than 2 on the shipped model's outputs.
PROMPT_LOOKUP_NGRAM = 3
# Tokens drafted per step where ``prompt_lookup_tokens`` is left to spg: on the 2-core CPU a forward over 4 to 6 tokens
# costs little more than over one, over 10 clearly more, and the shipped model kept about 2.5 of 5 (docs/generation.md).
AUTO_PROMPT_LOOKUP = 5


def prompt_lookup_tokens(settings: DecodeSettings, device_type: str, rows: int, cache: str) -> int:
    """Drafted tokens per step (0: none): ``prompt_lookup_tokens``, whose ``None`` means :data:`AUTO_PROMPT_LOOKUP` on
    the CPU. transformers' assisted generation drafts for a batch of one row with a dynamic cache only."""
    if rows != 1 or cache != "dynamic":
        return 0
    if settings.prompt_lookup_tokens is None:
        return AUTO_PROMPT_LOOKUP if device_type == "cpu" else 0
    return settings.prompt_lookup_tokens


@contextlib.contextmanager
def deferred_stop_check(enabled: bool) -> Iterator[None]:
    """Within the block, transformers' ``generate`` reads its stop flag one step late on every device, as it does on
    Apple GPUs. Hand-written because transformers has no setting for it (``DeferredStopCheck.is_supported``)."""
    check = getattr(generation_utils, "DeferredStopCheck", None)
    if not enabled or check is None:
        yield
        return
    original = check.__dict__["is_supported"]

    def is_supported(device: torch.device, cache, cache_is_returned: bool, is_assistant: bool) -> bool:
        return not is_assistant and (cache is None or cache.is_croppable or not cache_is_returned)

    check.is_supported = staticmethod(is_supported)
    try:
        yield
    finally:
        check.is_supported = original


@contextlib.contextmanager
def continuing(lm: PreTrainedModel, enabled: bool) -> Iterator[None]:
    """Within the block, ``lm.generate`` given a KV cache that already holds all but the last prompt tokens feeds only
    the rest on its first forward. transformers' own prefill does so, but its assisted generation (prompt lookup)
    feeds the whole prompt on its first forward whatever the cache holds; hand-written because it has no setting for
    it. Scoped to ``lm`` (an attribute of the instance, in front of its class's method; for a PEFT model, of the model
    inside, whose ``generate`` runs) and to the block."""
    if not enabled:
        yield
        return
    lm = lm.get_base_model() if hasattr(lm, "peft_config") else lm  # a PeftModel, read without importing peft
    original = lm.prepare_inputs_for_generation

    @functools.wraps(original)  # generate reads the signature to check its arguments
    def prepare(input_ids, *args, next_sequence_length=None, **kwargs):
        cache = kwargs.get("past_key_values")
        held = cache.get_seq_length() if cache is not None else 0
        if next_sequence_length is None and 0 < held < input_ids.shape[1]:
            next_sequence_length = input_ids.shape[1] - held
        return original(input_ids, *args, next_sequence_length=next_sequence_length, **kwargs)

    lm.prepare_inputs_for_generation = prepare
    try:
        yield
    finally:
        del lm.prepare_inputs_for_generation


def _trim(row: list[int], stops: set[int], keep_stop: int | None) -> list[int]:
    """Cut a generated row at its first stop token (kept only if it is ``keep_stop``, i.e. <eot>); padding follows it."""
    for pos, tok in enumerate(row):
        if tok in stops:
            return row[: pos + (tok == keep_stop)]
    return row


@dataclass
class _Call:
    """What one ``generate`` call decoded: per row the generated ids cut at the first stop token, the pointer's
    states (rows, tokens, hidden; None without a pointer), and the KV cache when it was kept."""

    rows: list[list[int]]
    states: torch.Tensor | None
    cache: object | None
    key: int | None = None  # the sampling key (None: greedy)


def _generate(
    request: DecodeRequest,
    *,
    checked: bool = False,
    key: int | None = None,
    start: int = EXPECT_IND,
    cache: object | None = None,
    keep_cache: bool = False,
    stop: Callable[[StateRecorder | None], StoppingCriteria] | None = None,
    rejected: Sequence[Sequence[int]] = (),
) -> _Call:
    """One ``generate`` call on ``request``'s left-padded prompts (its checker not applied: :func:`_checked`).
    ``checked``: the checker is in the loop (repeated limitations are blocked); ``key``: the sampling key (None: drawn
    from torch's RNG); ``start``: the grammar's state where the prompts end; ``cache``: a KV cache holding all but the
    last prompt token (``keep_cache``: return the cache); ``stop(recorder)``: a stopping criterion; ``rejected``:
    attempts the checker rejected at the claim the prompts end before, drafted from first (prompt lookup)."""
    lm, tokenizer, prompts, settings, tagged = (request.lm, request.tokenizer, request.prompts, request.settings,
                                                request.tagged)
    row_temperatures, grammar = request.row_temperatures, request.grammar
    pad_id = tokenizer.pad_token_id
    ids, mask = left_pad(prompts, pad_id)
    ids, mask = ids.to(lm.device), mask.to(lm.device)
    stops = _stop_ids(lm, tokenizer, tagged)
    processors = LogitsProcessorList()
    tags = structure_token_ids(tokenizer) if tagged else {}
    newline = tokenizer.encode("\n", add_special_tokens=False)
    # A claim starts after an opening tag, or after a line break in numbered plain claims.
    starts = [tags[IND], tags[DEP]] if tagged else newline
    if settings.no_repeat_ngram_size:
        processors.append(GeneratedNoRepeatNGram(settings.no_repeat_ngram_size, [*stops, *tags.values()], starts))
    if checked and settings.block_repeated_limitations:
        vocab = lm.get_output_embeddings().weight.shape[0]
        processors.append(NoRepeatedLimitation.from_tokenizer(tokenizer, starts, vocab))
    sampled = settings.do_sample or row_temperatures is not None
    temperature = row_temperatures if row_temperatures is not None else settings.temperature
    if settings.boundary_temperature is not None and sampled:
        # A claim ends at a closing tag, or at a line break in numbered plain claims.
        ends = [tags[IND_END], tags[DEP_END]] if tagged else newline
        processors.append(BoundaryTemperature(settings.boundary_temperature, ends, temperature))
    if grammar is not None:
        if not tagged:
            raise ValueError("constrained decoding applies to tagged (SPG) generation only")
        processors.append(StructureLogitsProcessor(grammar, settings.max_new_tokens, start))
    if sampled:  # last: it draws from what the processors before it left (spg.generation.sampling)
        processors.append(PositionalSampling.for_model(temperature, lm.generation_config, key))
        key = processors[-1].key
    # generate selects greedily: the draw is PositionalSampling's, so generate's own warpers stay off
    sampling = {"do_sample": False, "temperature": None, "top_k": None, "top_p": None}
    if settings.repetition_penalty != 1.0:
        sampling["repetition_penalty"] = settings.repetition_penalty
    implementation = kv_cache(settings, ids.device.type)
    if cache is not None:
        cached = {"past_key_values": cache}
    elif implementation == "static":
        cached = {"cache_implementation": implementation}
    else:  # a dynamic cache reserved once for the whole run: transformers' own copies itself at every step (kv_cache.py)
        cached = {"past_key_values": ReservedCache(settings.max_new_tokens)}
    kwargs = dict(
        input_ids=ids,
        attention_mask=mask,
        max_new_tokens=settings.max_new_tokens,
        min_new_tokens=settings.min_new_tokens or None,
        logits_processor=LogitsProcessorList([InOrder(processors)]),
        eos_token_id=stops,
        pad_token_id=pad_id,
        disable_compile=not settings.compiled,
        streamer=request.streamer,
        **cached,
        **sampling,
    )
    drafted = prompt_lookup_tokens(settings, ids.device.type, len(prompts), implementation)
    if drafted:  # what makes transformers' generate draft; spg.generation.drafts supplies the drafts
        kwargs["prompt_lookup_num_tokens"] = drafted
    recorder = None
    if request.spg is not None:
        recorder = StateRecorder(request.spg, settings.max_new_tokens)
        processors.insert(0, recorder)
    if stop is not None:
        kwargs["stopping_criteria"] = StoppingCriteriaList([stop(recorder)])
    if keep_cache:
        kwargs["return_dict_in_generate"] = True
    with (
        deferred_stop_check(settings.defer_stop_check and ids.device.type == "cuda"),
        drafting(drafted, PROMPT_LOOKUP_NGRAM, rejected),
        continuing(lm, cache is not None and bool(drafted)),
    ):
        out = lm.generate(**kwargs)
    kept_cache = out.past_key_values if keep_cache else None
    out = out.sequences if keep_cache else out
    states = recorder.states(out.shape[1] - ids.shape[1]) if recorder is not None else None
    eot = tokenizer.convert_tokens_to_ids(EOT) if tagged else None
    rows = [_trim(row, set(stops), eot) for row in out[:, ids.shape[1] :].tolist()]
    return _Call(rows, states, kept_cache, key if sampled else None)


@torch.no_grad()
def generate_batch(request: DecodeRequest) -> list[Generated]:
    """One :class:`Generated` per prompt of ``request``: decoded in one ``generate`` call, or with the checker in the
    loop (:func:`_checked`) where ``request.check`` is given and ``settings.redraws`` allows redraws."""
    if request.check is not None and request.settings.redraws:
        return _checked(request)
    call = _generate(request)
    tags = structure_token_ids(request.tokenizer) if request.tagged else {}
    return [_generated(request, ids, None if call.states is None else call.states[row], tags)
            for row, ids in enumerate(call.rows)]


def _generated(request: DecodeRequest, ids: list[int], states: torch.Tensor | None, tags: dict[str, int],
               redraws: int = 0, ended_by_checker: bool = False) -> Generated:
    spg = request.spg
    parents = None if spg is None else pointer_parents(ids, states, tags, spg.pointer, spg.pointer.query)
    text = request.tokenizer.decode(ids, skip_special_tokens=not request.tagged, clean_up_tokenization_spaces=False)
    return Generated(ids, text, parents, redraws, ended_by_checker)


def _checked(request: DecodeRequest) -> list[Generated]:
    """Generation with the checker in the loop (spg.generation.redraw): the batch decodes once; each row whose claim
    ``check`` blocks is then rolled back to that claim's start and redrawn on its own. A batch of one document is
    stopped at a blocked claim as soon as it closes. Each redraw continues from the KV cache of the call before it,
    cropped to the accepted tokens, instead of reading the prompt again (where the cache is dynamic: the CPU, ONNX
    Runtime); a row of a larger batch continues from its slice of the batch's cache where the cache hands one out
    (ONNX Runtime's), and elsewhere reads its prompt once more, at its first redraw. ``streamer`` (one document)
    gets each claim once it has passed, never one the checker rejects."""
    tokenizer, prompts, settings, tagged, spg = (request.tokenizer, request.prompts, request.settings, request.tagged,
                                                 request.spg)
    check, streamer, row_temperatures = request.check, request.streamer, request.row_temperatures
    # the calls below decode without the streamer (it is shown whole claims only) and without the checker (it is here)
    calls = dataclasses.replace(request, check=None, streamer=None)
    tags = structure_token_ids(tokenizer) if tagged else {}
    shown: list[int] = []  # the row's tokens the streamer has: whole claims that passed

    def show(ids: list[int]) -> None:
        if streamer is not None and len(ids) > len(shown):
            streamer.put(torch.tensor(ids[len(shown) :]))
            shown[:] = ids

    if streamer is not None:
        streamer.put(torch.tensor(prompts[0]))  # what generate hands a streamer first

    def parents(ids: Sequence[int], states: torch.Tensor) -> list[int | None]:
        return pointer_parents(ids, states, tags, spg.pointer, spg.pointer.query)

    claims = Claims(tokenizer, tagged, settings.max_new_tokens, tags, request.grammar is not None,
                    parents if spg is not None else None)
    one = len(prompts) == 1
    dynamic = kv_cache(settings, request.lm.device.type) == "dynamic"  # a cache that can be cropped and kept
    budget = Budget(settings.redraws, settings.max_new_tokens if settings.redraw_tokens is None else settings.redraw_tokens)
    eot = tokenizer.convert_tokens_to_ids(EOT) if tagged else None
    # where a claim still being written is checked (redraw_stop_at)
    separators = limitation_tokens(tokenizer)[0] if settings.redraw_stop_at != "claim" else ()
    phrases = phrase_end_ids(tokenizer) if settings.redraw_stop_at == "phrase" else ()

    def stopping(offset: int, prefix: list[int], prefix_states: torch.Tensor | None, made: list[ClaimStop],
                 pause: bool = False):
        """A ClaimStop (appended to ``made``) for a row whose ``prefix`` (claims already checked) ends its prompt."""

        def make(recorder: StateRecorder | None) -> ClaimStop:
            def states(generated: int) -> torch.Tensor | None:
                if recorder is None or recorder.buffer is None:
                    return prefix_states if recorder is not None else None
                new = recorder.states(generated - len(prefix))[0]
                return new if prefix_states is None else torch.cat([prefix_states, new.to(prefix_states.device)])

            made.append(ClaimStop(claims, check, offset, len(claims.ends(prefix)), states, separators, pause,
                                  show if one else None, phrases))
            return made[-1]

        return make

    made: list[ClaimStop] = []
    first = _generate(calls, checked=True, keep_cache=dynamic,
                      stop=stopping(len(prompts[0]), [], None, made) if one else None)
    # a batch's cache that hands out one row's (ONNX Runtime's: each row's from slot 0 on) spares a redrawn row its prompt
    rows_apart = not one and hasattr(first.cache, "row")
    # the run's seed (spg generate's ``seed``, or torch's own draw when none was set), read without drawing: a redraw's
    # key is then the same whatever else the run sampled and whichever documents shared its batch
    seed = torch.initial_seed()
    results = []
    for row, prompt in enumerate(prompts):
        cache = first.cache if one else None
        written = first.rows[row]  # the row as the latest call left it
        rejected: dict[int, list[list[int]]] = {}  # where a claim starts -> its rejected attempts (drafts for the next)

        def redraw(prefix: list[int], prefix_states: torch.Tensor | None, attempt: int, prompt=prompt, row=row,
                   rejected=rejected):
            """Attempt ``attempt`` at the claim after ``prefix``, paused once that claim passes; attempt 0 goes on
            after a redrawn claim with the run's own settings (and key: the first call's)."""
            nonlocal cache, written
            if attempt:
                rejected.setdefault(len(prefix), []).append(written[len(prefix) :])
            if cache is None and rows_apart:  # at the row's first redraw: every token it wrote but the last was fed
                cache = first.cache.row(row, len(prompt) + len(first.rows[row]) - 1)
            if cache is not None:
                cache.crop(len(prompt) + len(prefix) - 1 - cache.get_seq_length())
            rest = dict(max_new_tokens=settings.max_new_tokens - len(prefix),
                        min_new_tokens=max(settings.min_new_tokens - len(prefix), 0))
            temperatures = None if row_temperatures is None else row_temperatures[row : row + 1]
            key = first.key
            if attempt:
                rest.update(do_sample=True, temperature=settings.redraw_temperature)
                key, temperatures = redraw_key(seed, prompt, len(prefix), attempt), None
            call = _generate(
                dataclasses.replace(calls, prompts=[[*prompt, *prefix]], settings=dataclasses.replace(settings, **rest),
                                    row_temperatures=temperatures),
                checked=True, key=key, start=CLOSED if prefix else EXPECT_IND, cache=cache, keep_cache=dynamic,
                stop=stopping(len(prompt), prefix, prefix_states, made, pause=attempt > 0),
                rejected=rejected.get(len(prefix), ()) if attempt else (),
            )
            cache, written = call.cache, prefix + call.rows[0]
            stop = made[-1]
            return call.rows[0], None if call.states is None else call.states[0], stop.stopped, stop.paused

        states = None if first.states is None else first.states[row]
        settled = settle(first.rows[row], states, made[0].stopped if one else None, claims, check, budget, redraw,
                         lambda accepted: accepted + [eot] if tagged else accepted)
        results.append(_generated(request, settled.ids, settled.states, tags, settled.redraws,
                                  settled.ended_by_checker))
    if streamer is not None:
        show(results[0].ids)
        streamer.end()
    return results
