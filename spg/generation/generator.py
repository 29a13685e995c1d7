"""Descriptions in, claim forests out: prompt, decode, read the output back into a forest.

Three kinds of generator share one path:

* ``spg`` — a Stage I/II SPG model: writes the Eq. 1 tagged sequence; parents come from the pointer,
  read from the same generation pass (:mod:`spg.generation.pointer_decode`); optionally constrained.
* ``plain`` — a fine-tuned model that writes numbered plain claims (the paper's "Baseline" SFT, or
  "L_LM only" without tags); parents come from the claims' back-references.
* ``zero-shot`` — any chat model with :data:`spg.generation.prompts.ZERO_SHOT_INSTRUCTION`; read like ``plain``.

One result per document (a JSON object; the fields ``spg evaluate`` reads are ``claims_text``, ``raw``
and ``pointer_parents``):

``id``, ``mode``, ``raw`` (the generated sequence), ``claims_text`` (the forest rendered as numbered
claims), ``forest`` ([{num, text, parents}], parents from the pointer for ``spg``), ``pointer_parents``
(per claim the serialisation index of the pointer's parent, null for roots; null when there is no
pointer), ``text_parents`` (per claim, the claims its text cites), ``valid`` and ``reasons`` (the paper's
valid output, for tagged sequences; null for plain text), ``prompt_tokens``, ``new_tokens``.
"""

from __future__ import annotations

import tempfile
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from transformers import PreTrainedModel, PreTrainedTokenizerBase

from spg.forest import Forest
from spg.generation.constrained import StructureGrammar
from spg.generation.pointer_decode import DecodeSettings, Generated, generate_batch
from spg.generation.prompts import ZERO_SHOT_INSTRUCTION, prompt_ids
from spg.generation.runner import Document
from spg.generation.runtime import onnx_lm, resolve_runtime
from spg.linearize import parse_tagged
from spg.model.backbone import EMBEDDED, load_backbone, resolve, resolve_device, resolve_dtype
from spg.model.spg_model import SPGModel, is_artefact
from spg.parse import parse_claims
from spg.render import render

Mode = Literal["spg", "plain", "zero-shot"]


def forest_json(forest: Forest) -> list[dict]:
    return [{"num": c.num, "text": c.text, "parents": list(c.parents)} for c in forest.claims]


def tagged_result(generated: Generated) -> dict:
    """Fields of an SPG output: the forest takes the pointer's parents; the text's own citations are kept beside."""
    with_pointer = parse_tagged(generated.text, parents=generated.parents)
    from_text = parse_tagged(generated.text)
    return {
        "claims_text": render(with_pointer.forest),
        "forest": forest_json(with_pointer.forest),
        "pointer_parents": generated.parents,
        "text_parents": [list(c.parents) for c in from_text.forest.claims],
        "valid": with_pointer.valid,
        "reasons": with_pointer.reasons,
    }


def plain_result(generated: Generated) -> dict:
    """Fields of a numbered plain-text output, parsed by the claim parser."""
    forest = parse_claims(generated.text)
    return {
        "claims_text": render(forest) if forest.claims else "",
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

    def prompt(self, doc: Document) -> list[int]:
        measured = self._measured.pop(doc, None)
        if measured is not None:
            return measured.tolist()
        return prompt_ids(self.tokenizer, doc.description, self.max_prompt_tokens, self.instruction, self.truncation_side)

    def prompt_length(self, doc: Document) -> int:
        """Tokens of ``doc``'s prompt (``spg generate`` decodes the longest first); the prompt is kept for decoding."""
        ids = self.prompt(doc)
        self._measured[doc] = array("i", ids)
        return len(ids)

    def __call__(self, docs: Sequence[Document]) -> list[dict]:
        prompts = [self.prompt(d) for d in docs]
        tagged = self.mode == "spg"
        outputs = generate_batch(
            self.lm, self.tokenizer, prompts, self.settings, tagged=tagged, spg=self.spg, grammar=self.grammar
        )
        results = []
        for doc, prompt, out in zip(docs, prompts, outputs, strict=True):
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
                    "prompt_tokens": len(prompt),
                    "new_tokens": len(out.ids),
                }
            )
        return results


def on_onnx(spg: SPGModel) -> SPGModel:
    """``spg`` with its LM merged and run by ONNX Runtime (``runtime: onnx``); the pointer reads the ONNX model's
    hidden states through the same output-embedding hook."""
    with tempfile.TemporaryDirectory() as folder:
        # The export reads a saved merged model; the ready-model cache (spg.model.ready) keeps one, so that no
        # run has to write it again.
        merged = spg.merge_and_unload()
        merged.save_pretrained(folder)
        spg.tokenizer.save_pretrained(folder)  # the builder writes the tokenizer beside the model
        lm = onnx_lm(merged, folder)
    return SPGModel(lm, spg.tokenizer, spg.pointer, spg.spg_config)


def local_folder(name_or_path: str) -> str:
    """The local folder of a model by name or path (the ONNX export reads files); hub names from the local cache."""
    from huggingface_hub import snapshot_download

    path = resolve(name_or_path)
    return path if Path(path).is_dir() else snapshot_download(path, local_files_only=True)


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
    where = resolve_device(device)
    torch_dtype = resolve_dtype(dtype, where)
    runtime = resolve_runtime(settings.runtime, where, torch_dtype)
    if is_artefact(name_or_dir) and not zero_shot:
        spg = SPGModel.from_pretrained(name_or_dir, dtype=torch_dtype).to(where).eval()
        if settings.merge_adapters:
            spg.lm.merge_adapter()
        config = spg.spg_config
        if runtime == "onnx":
            spg = on_onnx(spg)
        mode: Mode = "spg" if config.tagged else "plain"
        if constrained is None:
            constrained = config.tagged
        return ClaimGenerator(
            spg.lm, spg.tokenizer, mode, settings, config.instruction, max_prompt_tokens,
            spg if config.tagged else None, constrained, config.description_truncation_side,
        )
    if constrained:
        raise ValueError(
            f"{name_or_dir or EMBEDDED}: constrained decoding needs a trained SPG model (tagged output); "
            "a chat model prompted zero-shot writes plain numbered claims"
        )
    lm, tokenizer = load_backbone(name_or_dir or EMBEDDED, torch_dtype)
    if runtime == "onnx":
        lm = onnx_lm(lm, local_folder(name_or_dir or EMBEDDED))
    return ClaimGenerator(lm.to(where).eval(), tokenizer, "zero-shot", settings, ZERO_SHOT_INSTRUCTION, max_prompt_tokens)
