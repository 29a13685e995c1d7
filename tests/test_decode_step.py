"""The batched decoding loop reads nothing from the device per step but the stop check (issue 41).

On a GPU each read of a device value by the host (``.item()``, ``.tolist()``, ``bool(tensor)``, ...) waits for every
queued kernel, so a read per step in the logits processors, the pointer's state recorder or the bookkeeping makes the
host and the device take turns. spg.generation.step_profile counts those reads on any device, here on the CPU with a
tiny random model built in code: decoding twice as many steps must add reads only at transformers' stop check (one per
step: "have all rows stopped?", deferred on CUDA by ``defer_stop_check``)."""

from __future__ import annotations

import pytest
import torch
from tiny import tiny_llama, tiny_tokenizer

from spg.generation.config import DecodeSettings
from spg.generation.generator import ClaimGenerator
from spg.generation.redraw import ClaimCheck
from spg.generation.runner import Document
from spg.generation.step_profile import profiled
from spg.model.batch import INSTRUCTION
from spg.model.spg_model import SPGConfig, SPGModel

DOCS = [Document(f"d{i}", text) for i, text in enumerate(
    ["A chair with four legs and a seat.", "A lamp with a shade.", "A hinge; a pin.", "A cup."])]
STOP_CHECK = "transformers/generation/utils.py:__call__"  # StopCheck.__call__: bool(unfinished.max() == 0)


@pytest.fixture(scope="module")
def spg():
    torch.manual_seed(0)
    return SPGModel.from_base(SPGConfig(lora_r=4), base=tiny_llama(), tokenizer=tiny_tokenizer()).eval()


def reads(spg, new_tokens: int, **settings) -> tuple[int, dict]:
    """(decoding steps, reads outside the forward by caller) of one batch of :data:`DOCS` on every processor spg has
    (grammar, loop control, repeated limitations, pointer states, sampling), the checker on but blocking nothing."""
    decode = DecodeSettings(max_new_tokens=new_tokens, min_new_tokens=new_tokens, no_repeat_ngram_size=4,
                            boundary_temperature=1.0, **settings)
    generator = ClaimGenerator(spg.lm, spg.tokenizer, "spg", decode, INSTRUCTION, 256, spg, True)
    generator.check = ClaimCheck(lambda forest: [], frozenset())
    for doc in DOCS:  # tokenised outside the profile
        generator.prompt_length(doc)
    torch.manual_seed(0)
    with profiled(spg.lm) as profile:
        generator(DOCS)
    return profile.steps, dict(profile.reads)


@pytest.mark.parametrize("sampled", [False, True], ids=["greedy", "sampled"])
def test_no_host_read_per_step_outside_the_stop_check(spg, sampled):
    steps, short = reads(spg, 12, do_sample=sampled)
    more_steps, long = reads(spg, 24, do_sample=sampled)
    assert more_steps - steps == 12
    assert long.pop(STOP_CHECK) - short.pop(STOP_CHECK) == 12  # the stop check: once a step
    assert long == short  # every other read happens per call or per row, not per step
