"""Descriptions in, claim forests out: prompt, decode, read the output back into a forest.

Three kinds of generator share one path:

* ``spg`` — a Stage I/II SPG model: writes the Eq. 1 tagged sequence; parents come from the pointer,
  read from the same generation pass (:mod:`spg.generation.pointer_decode`); optionally constrained.
* ``plain`` — a fine-tuned model that writes numbered plain claims (the paper's "Baseline" SFT, or
  "L_LM only" without tags); parents come from the claims' back-references.
* ``zero-shot`` — any chat model with :data:`spg.generation.prompts.ZERO_SHOT_INSTRUCTION`; read like ``plain``.

One result per document (a JSON object; the fields ``spg evaluate`` reads are ``claims_text``, ``raw``
and ``pointer_parents``):

``id``, ``mode``, ``raw`` (the generated sequence up to its last whole claim, as the model wrote it), ``claims_text``
(the forest's claims numbered, one per line), ``forest`` ([{num, text, parents}]; for ``spg`` the parents are the
pointer's and each claim's "of claim N" is written from them),
``pointer_parents`` (per claim the serialisation index of the pointer's parent, null for roots; null when there
is no pointer), ``text_parents`` (per claim, the claims its text cites), ``valid`` and ``reasons`` (the paper's
valid output, for tagged sequences; null for plain text), ``cut_by_budget`` (the claim the token budget ended,
as generated, left out of every other field: :mod:`spg.generation.whole_claims`; "" when the model ended its
output), ``prompt_tokens``, ``new_tokens`` (every generated token, the cut claim's included; a redrawn claim's
rejected drafts not), ``redraws`` (claims the checker rolled back and drew again: :mod:`spg.generation.redraw`),
``ended_by_checker`` (the redraw budget ran out, so the claim set ends at its last good claim).
"""

from __future__ import annotations

import dataclasses
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from transformers import PreTrainedTokenizerBase
from transformers.generation.streamers import BaseStreamer

from spg.forest import Forest
from spg.generation.constrained import StructureGrammar
from spg.generation.pointer_decode import DecodeSettings, Generated, generate_batch, tagged_claims
from spg.generation.prompts import ZERO_SHOT_INSTRUCTION
from spg.generation.redraw import ClaimCheck
from spg.generation.request import DecodeRequest
from spg.generation.runner import Document
from spg.generation.whole_claims import whole_plain, whole_tagged
from spg.linearize import DEP_END, EOT, IND_END, cite_parents, parse_tagged
from spg.model.config import describe
from spg.model.prompt import build_prompt
from spg.model.runtime import deterministic, load_model
from spg.parse import parse_claims
from spg.render import numbered

if TYPE_CHECKING:  # transformers' model code (modeling_utils: 1-2 s of imports) only where a model is built
    from transformers import PreTrainedModel

    from spg.model.spg_model import SPGModel

Mode = Literal["spg", "plain", "zero-shot"]


def forest_json(forest: Forest) -> list[dict]:
    return [{"num": c.num, "text": c.text, "parents": list(c.parents)} for c in forest.claims]


def tagged_result(generated: Generated) -> dict:
    """Fields of an SPG output: the forest takes the pointer's parents, and each claim's "of claim N" is written
    from them (spg.linearize.cite_parents), so its words and its structure agree in every output; the text's own
    citations are kept beside, and ``raw`` keeps the words as generated."""
    with_pointer = parse_tagged(generated.text, parents=generated.parents)
    forest = cite_parents(with_pointer.forest)
    from_text = parse_tagged(generated.text)
    return {
        "claims_text": numbered(forest),
        "forest": forest_json(forest),
        "pointer_parents": generated.parents,
        "text_parents": [list(c.parents) for c in from_text.forest.claims],
        "valid": with_pointer.valid,
        "reasons": with_pointer.reasons,
    }


def plain_result(generated: Generated) -> dict:
    """Fields of a numbered plain-text output, parsed by the claim parser."""
    forest = parse_claims(generated.text)
    return {
        "claims_text": numbered(forest),
        "forest": forest_json(forest),
        "pointer_parents": None,
        "text_parents": [list(c.parents) for c in forest.claims],
        "valid": None,
        "reasons": None,
    }


def unreadable_result(generated: Generated, tagged: bool, error: Exception) -> dict:
    """Fields of an output spg could not read into a forest: kept raw (what evaluation scores), marked invalid."""
    return {
        "claims_text": "",
        "forest": [],
        "pointer_parents": generated.parents,
        "text_parents": [],
        "valid": False if tagged else None,
        "reasons": [f"spg could not read this output into a forest ({type(error).__name__}: {error})"],
    }


@dataclass
class ClaimGenerator:
    """Callable on a batch of documents; returns one result dict per document (see the module docstring).

    ``lm`` generates; for ``spg`` it is ``spg.lm`` and the pointer is ``spg``'s.
    """

    lm: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase
    mode: Mode
    settings: DecodeSettings
    instruction: str
    max_prompt_tokens: int = 7168
    spg: SPGModel | None = None
    constrained: bool = False
    truncation_side: str = "right"  # which end of a long description is cut (SPG models: as in training)
    # the checker in the loop, on while settings.redraws > 0 (spg.generation.redraw); None: spg lint's checks in
    # settings.restatement's mode
    check: ClaimCheck | None = None
    # Prompts tokenised by prompt_length, until the batch that decodes them takes them: a long description is then
    # tokenised once per run, not once to sort and again to decode (int32 arrays: ~28 kB per 7k-token prompt).
    _measured: dict[Document, array] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.mode == "spg" and self.spg is None:
            raise ValueError("an SPG generator needs the SPG model (pointer head)")
        if self.constrained and self.mode != "spg":
            raise ValueError(f"constrained decoding needs a tagged SPG model, not a {self.mode} one")
        vocab = self.lm.get_output_embeddings().weight.shape[0]
        self.grammar = StructureGrammar.from_tokenizer(self.tokenizer, vocab) if self.constrained else None
        if self.check is None:
            self.check = ClaimCheck.reading(self.settings.restatement)

    def prompt(self, doc: Document) -> list[int]:
        measured = self._measured.pop(doc, None)
        if measured is not None:
            return measured.tolist()
        return build_prompt(self.tokenizer, doc.description, self.max_prompt_tokens, self.instruction, self.truncation_side)

    def prompt_length(self, doc: Document) -> int:
        """Tokens of ``doc``'s prompt (``spg generate`` decodes the longest first); the prompt is kept for decoding."""
        ids = self.prompt(doc)
        self._measured[doc] = array("i", ids)
        return len(ids)

    def whole_claims(self, out: Generated) -> tuple[Generated, str]:
        """``out`` without the claim that the token budget ended, and that claim as generated ("" when none)."""
        budget = self.settings.max_new_tokens
        if self.spg is None:  # plain numbered claims; ids are not read again
            text, cut = whole_plain(out.text, len(out.ids) >= budget)
            return dataclasses.replace(out, text=text), cut
        tags = self.spg.structure_ids
        kept, cut = whole_tagged(out.ids, budget, {tags[IND_END], tags[DEP_END]}, tags[EOT], self.grammar is not None)
        if not cut:
            return out, ""
        parents = None if out.parents is None else out.parents[: len(tagged_claims(kept, tags))]
        return Generated(kept, self._decode(kept), parents), self._decode(cut)

    def _decode(self, ids: list[int]) -> str:
        # as generate_batch decodes a tagged row
        return self.tokenizer.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False)

    def __call__(self, docs: Sequence[Document], streamer: BaseStreamer | None = None) -> list[dict]:
        """One result per document; ``streamer`` (one document) sees the tokens as they are decoded."""
        prompts = [self.prompt(d) for d in docs]
        tagged = self.mode == "spg"
        outputs = generate_batch(DecodeRequest(self.lm, self.tokenizer, prompts, self.settings, tagged, self.spg,
                                               self.grammar, check=self.check, streamer=streamer))
        results = []
        for doc, prompt, generated in zip(docs, prompts, outputs, strict=True):
            out, cut = self.whole_claims(generated)
            try:
                fields = tagged_result(out) if tagged else plain_result(out)
            except Exception as err:  # noqa: BLE001 - one unreadable output must not end a run of thousands
                fields = unreadable_result(out, tagged, err)
            results.append(
                {
                    "id": doc.id,
                    "mode": self.mode,
                    "raw": out.text,
                    **fields,
                    "cut_by_budget": cut,
                    "prompt_tokens": len(prompt),
                    "new_tokens": len(generated.ids),
                    "redraws": generated.redraws,
                    "ended_by_checker": generated.ended_by_checker,
                }
            )
        return results


def load_generator(
    name_or_dir: str | None,
    settings: DecodeSettings,
    *,
    zero_shot: bool = False,
    constrained: bool | None = None,
    max_prompt_tokens: int = 7168,
    dtype: str = "auto",
    device: str | None = None,
) -> ClaimGenerator:
    """An SPG artefact dir (``spg_config.json`` inside) or any chat model by name/path (zero-shot), on ``device``
    (default: CUDA when available) in ``dtype`` (``auto``: bfloat16 on a GPU that supports it, else float32).

    ``constrained=None`` means: on for tagged SPG models, off otherwise.
    """
    source = describe(name_or_dir, zero_shot)
    if constrained and source.directory is None:
        raise ValueError(
            f"{source.name}: constrained decoding needs a trained SPG model (tagged output); "
            "a chat model prompted zero-shot writes plain numbered claims"
        )
    if settings.deterministic:
        deterministic()
    loaded = load_model(source, settings.runtime, onnx_weights=settings.onnx_weights,
                        merge_adapters=settings.merge_adapters, dtype=dtype, device=device)
    spg = loaded.spg
    if spg is None:
        return ClaimGenerator(loaded.lm, loaded.tokenizer, "zero-shot", settings, ZERO_SHOT_INSTRUCTION, max_prompt_tokens)
    config = spg.spg_config
    mode: Mode = "spg" if config.tagged else "plain"
    if constrained is None:
        constrained = config.tagged
    return ClaimGenerator(
        spg.lm, spg.tokenizer, mode, settings, config.instruction, max_prompt_tokens,
        spg if config.tagged else None, constrained, config.description_truncation_side,
    )
