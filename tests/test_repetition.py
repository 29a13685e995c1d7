import pytest
import torch
from tiny import tiny_llama, tiny_tokenizer

from spg.generation.pointer_decode import DecodeSettings, generate_batch
from spg.generation.repetition import GeneratedNoRepeatNGram
from spg.generation.request import DecodeRequest

VOCAB = 12


def step(processor: GeneratedNoRepeatNGram, prompt: list[list[int]], generated: list[list[int]]) -> torch.Tensor:
    """Run the processor as generate does: first on the prompt alone, then on prompt + generated tokens."""
    processor(torch.tensor(prompt), torch.zeros(len(prompt), VOCAB))
    return processor(torch.tensor([p + g for p, g in zip(prompt, generated)]), torch.zeros(len(prompt), VOCAB))


def banned(scores: torch.Tensor) -> list[list[int]]:
    return [torch.isinf(row).nonzero().flatten().tolist() for row in scores]


def test_the_token_that_would_repeat_a_generated_ngram_is_banned():
    assert banned(step(GeneratedNoRepeatNGram(3), [[9, 9]], [[1, 2, 3, 4, 1, 2]])) == [[3]]


def test_ngrams_of_the_prompt_may_be_copied():
    assert banned(step(GeneratedNoRepeatNGram(3), [[1, 2, 3]], [[1, 2]])) == [[]]


def test_exempt_tokens_are_never_banned():
    # (5, 6) was followed by 7 and by 8; 7 is a structure tag or stop token here.
    assert banned(step(GeneratedNoRepeatNGram(3, exempt=[7]), [[0]], [[5, 6, 7, 5, 6, 8, 5, 6]])) == [[8]]


def test_rows_are_banned_independently():
    scores = step(GeneratedNoRepeatNGram(2), [[0], [0]], [[4, 5, 4], [4, 5, 6]])
    assert banned(scores) == [[5], []]


def test_only_the_current_claim_counts_when_claim_boundaries_are_given():
    # Boundary 0 opens a claim: (1, 2) then 3 was written in the previous claim, so 3 may follow (1, 2) again.
    assert banned(step(GeneratedNoRepeatNGram(3, boundaries=[0]), [[9]], [[1, 2, 3, 0, 1, 2]])) == [[]]
    assert banned(step(GeneratedNoRepeatNGram(3, boundaries=[0]), [[9]], [[0, 1, 2, 3, 1, 2]])) == [[3]]


def test_an_ngram_size_below_two_is_refused():
    with pytest.raises(ValueError, match="at least 2"):
        GeneratedNoRepeatNGram(1)


@pytest.mark.parametrize("seed", range(4))
def test_generation_never_repeats_an_ngram_of_its_own_output(seed):
    tok, model = tiny_tokenizer(), tiny_llama()
    prompts = [tok.encode("ab"), tok.encode("a chair")]
    torch.manual_seed(seed)
    settings = DecodeSettings(max_new_tokens=60, min_new_tokens=60, temperature=0.3, no_repeat_ngram_size=3)
    newline = tok.encode("\n", add_special_tokens=False)
    for out in generate_batch(DecodeRequest(model, tok, prompts, settings, tagged=False)):
        claims, current = [], []
        for token in out.ids:  # plain claims: a line break starts the next claim
            current.append(token)
            if token in newline:
                claims.append(current)
                current = []
        for claim in [*claims, current]:
            grams = [tuple(claim[i : i + 3]) for i in range(len(claim) - 2)]
            assert len(grams) == len(set(grams))
