"""The zero-shot structured prompt for any chat model.

The paper evaluates every zero-shot baseline "with the same structured prompt, which specifies the
required claim format (independent vs. dependent claims, explicit parent-claim references, and
hierarchical scope narrowing) followed by the patent description" (appendix "Prompts"), but leaves
the text out. :data:`ZERO_SHOT_INSTRUCTION` is ours (reproduced in docs/generation.md). Its output is
plain numbered claims, read into a forest by :func:`spg.parse.parse_claims`.

Fine-tuned models (SPG, and the plain-claims "Baseline") are prompted with the instruction they were
trained on, :data:`spg.model.batch.INSTRUCTION`. Both go through :func:`spg.model.batch.build_prompt`:
the chat template around "instruction, blank line, description", the description cut so the prompt fits
the budget (paper: 8,192 − 1,024 = 7,168 tokens).
"""

from __future__ import annotations

from transformers import PreTrainedTokenizerBase

from spg.model.batch import INSTRUCTION, build_prompt

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


def prompt_ids(
    tokenizer: PreTrainedTokenizerBase,
    description: str,
    max_tokens: int,
    instruction: str = INSTRUCTION,
    truncation_side: str = "right",
) -> list[int]:
    """Token ids of the chat prompt for ``description``, at most ``max_tokens`` long; a fine-tuned model's
    description is cut on the side it was trained with (``truncation_side``)."""
    return build_prompt(tokenizer, description.strip(), max_tokens, instruction, truncation_side)
