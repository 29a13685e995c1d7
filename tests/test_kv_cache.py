"""The reserved dynamic KV cache: same outputs as transformers' DynamicCache, without a copy per step."""

import torch
from tiny import tiny_llama, tiny_tokenizer
from transformers import DynamicCache

from spg.generation.kv_cache import ReservedCache, ReservedLayer
from spg.generation.pointer_decode import left_pad


def _greedy(model, ids, mask, cache, new_tokens):
    return model.generate(
        input_ids=ids, attention_mask=mask, past_key_values=cache, max_new_tokens=new_tokens,
        min_new_tokens=new_tokens, do_sample=False, pad_token_id=0,
    )


def test_reserved_cache_gives_the_dynamic_caches_greedy_outputs_with_left_padding_and_past_its_reserve():
    tok, model = tiny_tokenizer(), tiny_llama().eval()
    ids, mask = left_pad([tok.encode("a step stool"), tok.encode("hinge")], tok.pad_token_id)
    # reserve 3 < 12 new tokens: the buffer has to grow during the run
    assert torch.equal(_greedy(model, ids, mask, ReservedCache(3), 12), _greedy(model, ids, mask, DynamicCache(), 12))


def test_a_step_writes_into_the_reserved_buffer_instead_of_copying_the_cache():
    layer = ReservedLayer(reserve=8)
    keys, values = layer.update(torch.randn(2, 3, 5, 4), torch.randn(2, 3, 5, 4))
    step_k, step_v = torch.randn(2, 3, 1, 4), torch.randn(2, 3, 1, 4)
    after_k, after_v = layer.update(step_k, step_v)
    assert after_k.data_ptr() == keys.data_ptr() and after_v.data_ptr() == values.data_ptr()
    assert after_k.shape[-2] == 6 and torch.equal(after_k[..., 5:, :], step_k) and torch.equal(after_k[..., :5, :], keys)
