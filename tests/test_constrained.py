"""Structure-constrained decoding: whatever the model wants, the output is a valid forest within budget."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tiny import tiny_llama, tiny_tokenizer
from transformers import LogitsProcessorList

from spg.generation.constrained import StructureGrammar, StructureLogitsProcessor, stop_token_ids, vocabulary_pieces
from spg.linearize import EOT, STRUCTURE_TOKENS, parse_tagged


@pytest.fixture(scope="module")
def tokenizer():
    tok = tiny_tokenizer()
    tok.add_tokens(list(STRUCTURE_TOKENS), special_tokens=True)
    return tok


@pytest.fixture(scope="module")
def grammar(tokenizer):
    return StructureGrammar.from_tokenizer(tokenizer)


def run_random_scores(tokenizer, grammar, max_new_tokens: int, batch: int, seed: int) -> list[list[int]]:
    """Drive the processor with random logits, sampling like `generate` would (rows stop at <eot>)."""
    gen = torch.Generator().manual_seed(seed)
    processor = StructureLogitsProcessor(grammar, max_new_tokens)
    ids = torch.full((batch, 3), tokenizer.pad_token_id)
    eot = tokenizer.convert_tokens_to_ids(EOT)
    finished = torch.zeros(batch, dtype=torch.bool)
    for _ in range(max_new_tokens):
        # Heavy bias towards tags and blanks: the adversarial case for the grammar and the budget.
        scores = torch.randn(batch, len(tokenizer), generator=gen) * 4
        scores = processor(ids, scores)
        assert torch.isfinite(scores).any(dim=-1).all(), "a row has no allowed token"
        nxt = torch.multinomial(torch.softmax(scores, -1), 1, generator=gen).squeeze(1)
        nxt = torch.where(finished, torch.tensor(tokenizer.pad_token_id), nxt)
        finished |= nxt == eot
        ids = torch.cat([ids, nxt[:, None]], dim=1)
        if finished.all():
            break
    return [row[3:].tolist() for row in ids]


def decode(tokenizer, ids: list[int]) -> str:
    return tokenizer.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False)


def tree_root_parents(tagged: str) -> list[int | None]:
    parse = parse_tagged(tagged)
    roots: dict[int, int] = {}
    out: list[int | None] = []
    for i, (kind, tree) in enumerate(zip(parse.kinds, parse.trees)):
        if kind == "ind":
            roots[tree] = i
            out.append(None)
        else:
            out.append(roots.get(tree))
    return out


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), max_new_tokens=st.integers(4, 40), batch=st.integers(1, 4))
def test_random_logits_always_give_a_valid_forest_within_budget(tokenizer, grammar, seed, max_new_tokens, batch):
    for ids in run_random_scores(tokenizer, grammar, max_new_tokens, batch, seed):
        tagged = decode(tokenizer, ids)
        parse = parse_tagged(tagged, parents=tree_root_parents(tagged))
        assert parse.valid, (tagged, parse.reasons)
        assert tokenizer.convert_tokens_to_ids(EOT) in ids[:max_new_tokens]


def test_tiny_model_generate_gives_valid_forests_for_every_seed(tokenizer, grammar):
    model = tiny_llama(vocab_size=len(tokenizer))
    eot = tokenizer.convert_tokens_to_ids(EOT)
    prompts = tokenizer(["describe a chair", "x"], return_tensors="pt", padding=True, padding_side="left")
    for seed in range(8):
        for max_new_tokens in (4, 7, 30):
            torch.manual_seed(seed)
            out = model.generate(
                **prompts,
                do_sample=True,
                temperature=1.5,
                max_new_tokens=max_new_tokens,
                logits_processor=LogitsProcessorList([StructureLogitsProcessor(grammar, max_new_tokens)]),
                eos_token_id=[eot, *stop_token_ids(tokenizer)],
                pad_token_id=tokenizer.pad_token_id,
            )
            for row in out[:, prompts["input_ids"].shape[1] :]:
                tagged = decode(tokenizer, row.tolist())
                parse = parse_tagged(tagged, parents=tree_root_parents(tagged))
                assert parse.valid, (seed, max_new_tokens, tagged, parse.reasons)


def test_text_tokens_that_could_spell_a_tag_are_forbidden(tokenizer, grammar):
    processor = StructureLogitsProcessor(grammar, 50)
    ids = torch.tensor([[1, tokenizer.convert_tokens_to_ids("<ind>")]])
    processor(ids[:, :1], torch.zeros(1, len(tokenizer)))  # first call: sees the prompt
    scores = processor(ids, torch.zeros(1, len(tokenizer)))
    assert scores[0, tokenizer.convert_tokens_to_ids("<")] == float("-inf")
    assert scores[0, tokenizer.convert_tokens_to_ids("a")] == 0


def test_empty_claim_cannot_be_closed(tokenizer, grammar):
    processor = StructureLogitsProcessor(grammar, 50)
    ind, ind_end = tokenizer.convert_tokens_to_ids(["<ind>", "</ind>"])
    space = tokenizer.convert_tokens_to_ids("Ġ")
    ids = torch.tensor([[1]])
    processor(ids, torch.zeros(1, len(tokenizer)))
    for tok in (ind, space):
        ids = torch.cat([ids, torch.tensor([[tok]])], dim=1)
        scores = processor(ids, torch.zeros(1, len(tokenizer)))
    assert scores[0, ind_end] == float("-inf")


def test_a_drafted_token_that_is_dropped_leaves_no_trace_in_the_grammar(tokenizer, grammar):
    # assisted generation calls the processor on drafted tokens, then again on a shorter sequence
    ind, ind_end, dep, eot = tokenizer.convert_tokens_to_ids(["<ind>", "</ind>", "<dep>", "<eot>"])
    a = tokenizer.convert_tokens_to_ids("a")
    kept, drafts = [1, ind, a], [ind_end, dep, a]
    drafted = StructureLogitsProcessor(grammar, 50)
    for end in range(1, len(kept + drafts) + 1):
        drafted(torch.tensor([(kept + drafts)[:end]]), torch.zeros(1, len(tokenizer)))
    final = kept + [a]  # the model kept writing claim text instead of closing the claim
    fresh = StructureLogitsProcessor(grammar, 50)
    for end in range(1, len(final)):
        fresh(torch.tensor([final[:end]]), torch.zeros(1, len(tokenizer)))
    expected = fresh(torch.tensor([final]), torch.zeros(1, len(tokenizer)))
    assert torch.equal(drafted(torch.tensor([final]), torch.zeros(1, len(tokenizer))), expected)
    assert expected[0, eot] == float("-inf") and expected[0, ind_end] == 0  # inside a claim, not after one


def test_tokenizer_without_structure_tokens_is_rejected():
    with pytest.raises(ValueError, match="no-constrained"):
        StructureGrammar.from_tokenizer(tiny_tokenizer())


def test_budget_below_one_claim_is_rejected(grammar):
    with pytest.raises(ValueError, match="at least 4"):
        StructureLogitsProcessor(grammar, 3)


def test_every_decoding_processor_moves_its_tensors_to_the_logits_device(grammar):
    """The device rule without a GPU: logits on the meta device, and every tensor a processor keeps must follow
    them there (one move, at the first step: a copy per step would make the host wait for the device).
    spg.generation.sampling draws its noise with a generator on the logits' device, which the meta device has not."""
    from spg.generation.boundary import BoundaryTemperature
    from spg.generation.repetition import GeneratedNoRepeatNGram

    vocab = len(grammar.token_class)
    processors = [StructureLogitsProcessor(grammar, 32), GeneratedNoRepeatNGram(3, [1, 2], [3]),
                  BoundaryTemperature(1.0, [3], [0.5, 0.5])]
    for processor in processors:
        for length in (10, 11):  # the prompt, then one generated token
            ids = torch.zeros(2, length, dtype=torch.long, device="meta")
            assert processor(ids, torch.zeros(2, vocab, device="meta")).device.type == "meta"
        kept = [name for name, value in vars(processor).items() if isinstance(value, torch.Tensor)]
        assert kept and all(getattr(processor, name).device.type == "meta" for name in kept), type(processor).__name__


def test_the_vocabulary_decoded_in_one_call_is_the_vocabulary_decoded_id_by_id(tokenizer):
    from transformers.tokenization_utils_tokenizers import PreTrainedTokenizerFast

    assert type(tokenizer) is PreTrainedTokenizerFast  # the fast path is the one taken
    by_id = tokenizer.batch_decode([[i] for i in range(len(tokenizer))], clean_up_tokenization_spaces=False)
    assert vocabulary_pieces(tokenizer) == by_id
