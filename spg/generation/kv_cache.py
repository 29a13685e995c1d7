"""A dynamic KV cache that does not copy itself at every step.

transformers' ``DynamicLayer.update`` appends a step's keys and values with ``torch.cat``, which copies the whole
cache of every layer at every decoding step: at batch 8 with ~700-token prompts, ~390 MB a step on the embedded
model (issue 23). :class:`ReservedLayer` writes each step into a buffer reserved once for the prompt and the
token budget and hands attention a view of the filled part, so a step writes only its own keys and values.
Outputs are the same as with ``DynamicCache`` (tested): the attention reads the same numbers.
"""

from __future__ import annotations

import torch
from transformers.cache_utils import Cache, DynamicLayer


class ReservedLayer(DynamicLayer):
    """A ``DynamicLayer`` whose keys and values are views of a buffer with room for ``reserve`` more tokens than the
    first update brings; past that the buffer doubles (one copy), so a longer run stays correct."""

    def __init__(self, reserve: int = 0):
        super().__init__()
        self.reserve = reserve
        self._keys: torch.Tensor | None = None
        self._values: torch.Tensor | None = None

    def _holds(self) -> bool:
        """Whether ``keys`` is still the view of the buffer (``crop`` or a batch selection replace it by a copy)."""
        return self._keys is not None and self.keys.data_ptr() == self._keys.data_ptr() and (
            self.keys.shape[0] == self._keys.shape[0]
        )

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        held = self.keys.shape[-2] if self.keys.numel() else 0
        needed = held + key_states.shape[-2]
        if not self._holds() or needed > self._keys.shape[-2]:
            room = max(needed + self.reserve, 2 * held)
            self._keys = key_states.new_empty(*key_states.shape[:-2], room, key_states.shape[-1])
            self._values = value_states.new_empty(*value_states.shape[:-2], room, value_states.shape[-1])
            if held:
                self._keys[..., :held, :] = self.keys
                self._values[..., :held, :] = self.values
        self._keys[..., held:needed, :] = key_states
        self._values[..., held:needed, :] = value_states
        self.keys, self.values = self._keys[..., :needed, :], self._values[..., :needed, :]
        return self.keys, self.values


class ReservedCache(Cache):
    """A dynamic cache of :class:`ReservedLayer`, each with room for ``reserve`` tokens after the prompt (pass the
    generation's ``max_new_tokens``): pass it to ``generate`` as ``past_key_values``."""

    def __init__(self, reserve: int):
        super().__init__(layers=None, layer_class_to_replicate=lambda: ReservedLayer(reserve))
