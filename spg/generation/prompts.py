"""The zero-shot structured prompt for any chat model.

The paper evaluates every zero-shot baseline "with the same structured prompt, which specifies the
required claim format (independent vs. dependent claims, explicit parent-claim references, and
hierarchical scope narrowing) followed by the patent description" (appendix "Prompts"), but leaves
the text out. :data:`ZERO_SHOT_INSTRUCTION` is ours (reproduced in docs/generation.md). Its output is
plain numbered claims, read into a forest by :func:`spg.parse.parse_claims`.

Fine-tuned models (SPG, and the plain-claims "Baseline") are prompted with the instruction they were
trained on, :data:`spg.model.config.INSTRUCTION`. Both go through :func:`spg.model.prompt.build_prompt`:
the chat template around "instruction, blank line, description", the description cut so the prompt fits
the budget (paper: 8,192 − 1,024 = 7,168 tokens).
"""

from __future__ import annotations

from pathlib import Path

from spg.model.config import EMBEDDED, SPGConfig, embedded_folder, is_artefact, resolve_artefact, tokenizer_folder
from spg.model.prompt import prompt_frame

ZERO_SHOT_INSTRUCTION = """\
You are a patent attorney. Draft the claim set of a patent application for the invention described below.

Follow these rules:
1. Start with an independent claim that stands on its own and covers the invention broadly: a preamble \
("A method for ...", "An apparatus for ..."), the word "comprising:", then the essential elements separated \
by semicolons. Add further independent claims only for a different category (e.g. a method, an apparatus, \
a system).
2. Follow each independent claim with dependent claims. Every dependent claim refers to exactly one earlier \
claim by its number, in the form "The method of claim 1, wherein ..." or "The apparatus of claim 3, further \
comprising ...".
3. A dependent claim narrows the claim it refers to: it adds a feature or limits an element already \
introduced. It never removes a feature and never contradicts its parent.
4. Introduce each element with "a" or "an" the first time, and refer back to it with "the" or "said".
5. Number the claims 1., 2., 3., ... in order, one claim per line. Write only the claims: no title, \
no headings, no explanations.

Description:"""


def frame_before_loading(model: str, zero_shot: bool = False) -> int | None:
    """The tokens the chat template and instruction take around the description (:func:`prompt_frame`) for
    ``model`` as spg.generation.generator.load_generator would prompt it, counted with its tokenizer alone: no
    torch, no weights. None where that tokenizer has no ``tokenizer.json`` to read that way (a slow-only tokenizer;
    the embedded model before its first conversion); the count after loading then decides."""
    from huggingface_hub import try_to_load_from_cache
    from transformers import PreTrainedTokenizerFast

    from spg.model.tokenizer import shared_tokenizer, tokenizers_class

    if is_artefact(model) and not zero_shot:
        directory = resolve_artefact(model)
        config = SPGConfig.load(directory)
        folder, instruction = tokenizer_folder(directory, config), config.instruction
    else:
        folder, instruction = embedded_folder() if model in ("", EMBEDDED) else Path(model), ZERO_SHOT_INSTRUCTION
        if not folder.is_dir():  # a hub name: its cached snapshot, if the cache has one
            try:
                cached = try_to_load_from_cache(model, "tokenizer.json")
            except ValueError:  # not a repo id after all
                return None
            folder = Path(cached).parent if isinstance(cached, str) else folder
    if not (folder / "tokenizer.json").is_file():
        return None
    try:
        # the tokenizer the model then decodes with (spg.model.tokenizer): read once
        tokenizer = shared_tokenizer(folder) if tokenizers_class(folder) else PreTrainedTokenizerFast.from_pretrained(str(folder))
        return prompt_frame(tokenizer, instruction)
    except Exception:  # any tokenizer this cannot read (one that needs its own class): the count after loading decides
        return None

