"""Tiny, offline stand-ins for a causal LM and its tokenizer, built in code for every model test.

The tokenizer is byte-level (every UTF-8 byte is one token, no merges), so any text round-trips and
nothing is downloaded; it has a Llama-3-like chat template and an eos token, and does NOT contain
the six structure tokens (adding them is what :mod:`spg.model.tokens` does). The model is a
random-initialised two-layer Llama sized to the tokenizer; :func:`tiny_local_lm` is the same with
a two-token attention window (a Mistral), for learning tests that need text near a tag to reach the
tag's hidden state (a random model's attention is nearly uniform, which washes that signal out).
"""

from __future__ import annotations

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, MistralConfig, MistralForCausalLM, PreTrainedTokenizerFast

CHAT_TEMPLATE = (
    "{% for m in messages %}<|start|>{{ m['role'] }}\n{{ m['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|start|>assistant\n{% endif %}"
)
SPECIALS = ("<|pad|>", "<|start|>", "<|end|>")


def tiny_tokenizer() -> PreTrainedTokenizerFast:
    """A byte-level tokenizer with pad/eos and a chat template; vocab = 3 specials + 256 bytes."""
    byte_vocab = pre_tokenizers.ByteLevel.alphabet()
    vocab = {tok: i for i, tok in enumerate(SPECIALS)}
    for ch in sorted(byte_vocab):
        vocab[ch] = len(vocab)
    backend = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    backend.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(
        tokenizer_object=backend, pad_token="<|pad|>", bos_token="<|start|>", eos_token="<|end|>"
    )
    tok.add_special_tokens({"additional_special_tokens": list(SPECIALS[1:])})
    tok.chat_template = CHAT_TEMPLATE
    return tok


def tiny_llama(
    vocab_size: int | None = None, hidden_size: int = 32, layers: int = 2, seed: int = 0, initializer_range: float = 0.02
) -> LlamaForCausalLM:
    """A random two-layer Llama; ``vocab_size`` defaults to the tiny tokenizer's."""
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=vocab_size or len(tiny_tokenizer()),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        tie_word_embeddings=False,
        pad_token_id=0,
        initializer_range=initializer_range,
    )
    return LlamaForCausalLM(config)


def tiny_local_lm(vocab_size: int | None = None, hidden_size: int = 64, window: int = 2, seed: int = 0) -> MistralForCausalLM:
    """A random two-layer causal LM whose attention sees only the last ``window`` positions."""
    torch.manual_seed(seed)
    config = MistralConfig(
        vocab_size=vocab_size or len(tiny_tokenizer()),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        sliding_window=window,
        max_position_embeddings=4096,
        tie_word_embeddings=False,
        pad_token_id=0,
    )
    return MistralForCausalLM(config)
