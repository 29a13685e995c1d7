"""The ``onnx`` runtime: a causal LM exported once to ONNX, run by ONNX Runtime on the CPU, behind the transformers
model interface so that ``generate``, spg's logits processors and the pointer work unchanged.

Why (measured on the 2-core CPU, issue 23 and docs/generation.md "CPU decoding"): a decoding step of the float32
PyTorch model spends about half its time in per-operator framework work. ONNX Runtime runs the whole step in C++
with fused attention. The export keeps the weights in float32: it then decodes exactly the tokens PyTorch's float32
model decodes (greedy, constrained and not), where the 4-bit and 8-bit ``MatMulNBits`` exports the builder offers
were faster still but left float32's greedy path within 0 to 61 tokens (docs/generation.md lists them).

The export is onnxruntime-genai's model builder (spg.model.ready.export), run once per
model: beside an SPG artefact's ready form, or for any other model folder in ``$SPG_CACHE/onnx`` keyed by its files
(both asked for through spg.model.ready, which calls :func:`export`). Its graph also returns the last layer's hidden
states (``include_hidden_states``): :class:`OnnxCausalLM` hands them to its output-embedding module, so a hook on
``get_output_embeddings()`` (the SPG model's ``last_hidden_state``) sees the states the logits come from.

The exported attention (``GroupQueryAttention``) keeps each row's keys and values from slot 0 on and reads a row's
length (its position, and where its next key goes) from the count of ones in its attention mask, as if padding were on
the right; transformers pads on the left. So :meth:`OnnxCausalLM.forward` feeds a left-padded prompt row by row (each
row's real tokens into its own slice of the cache) and hands ONNX Runtime masks with each row's ones first: a batch
then decodes in one run per step, each row exactly as it decodes alone (the same logits, bit for bit; tested), where it
used to decode one row after the other (issue 41: batch 8 on the CPU gained nothing over batch 1).
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import torch
from torch import nn
from transformers import GenerationConfig, GenerationMixin, PretrainedConfig
from transformers.cache_utils import Cache
from transformers.modeling_outputs import CausalLMOutputWithPast


class OnnxCache(Cache):
    """The ONNX model's key/value buffers, one per layer input, reserved once for the prompt and ``reserve`` more
    tokens: ONNX Runtime's attention writes each step into them in place (``past_present_share_buffer``), where
    separate past and present arrays would copy the whole cache every step. transformers only asks it its length."""

    is_compileable = False

    def __init__(self, reserve: int = 0) -> None:
        super().__init__(layers=[])
        self.reserve = reserve
        self.buffers: dict[str, np.ndarray] = {}
        self.length = 0
        self.binding = None  # the session's IO binding with the buffers bound (OnnxCausalLM._run), until they move

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self.length

    def row(self, row: int, length: int) -> OnnxCache:
        """Row ``row``'s keys and values as a one-row cache holding its first ``length`` positions (a batch keeps
        each row's from slot 0 on: :meth:`OnnxCausalLM.forward`), so that a redraw of that row continues from it
        instead of reading its prompt again (spg.generation.pointer_decode)."""
        alone = OnnxCache(self.reserve)
        alone.buffers = {name: buffer[row : row + 1].copy() for name, buffer in self.buffers.items()}
        alone.length = length
        return alone

    def crop(self, tokens_to_remove: int) -> None:
        """Forget the last ``-tokens_to_remove`` positions (assisted generation drops the drafted tokens it did not
        keep); the next forward writes over them."""
        if tokens_to_remove > 0:
            raise ValueError(f"crop takes the (negative) number of positions to drop, got {tokens_to_remove}")
        self.length += tokens_to_remove

    def room_for(self, names: list[str], shape: tuple[int, int, int], new: int) -> None:
        """Buffers of shape (batch, kv heads, capacity, head dim) with room for ``new`` more tokens."""
        needed = self.length + new
        capacity = next(iter(self.buffers.values())).shape[2] if self.buffers else 0
        if needed <= capacity:
            return
        batch, heads, head_dim = shape
        grown = max(needed + self.reserve, 2 * capacity)
        for name in names:
            buffer = np.zeros((batch, heads, grown, head_dim), np.float32)
            if name in self.buffers:
                buffer[:, :, : self.length] = self.buffers[name][:, :, : self.length]
            self.buffers[name] = buffer
        self.binding = None


class OutputHead(nn.Module):
    """Stands where the output embedding is: called with the final hidden states and the logits ONNX Runtime
    computed from them, it returns the logits, so forward hooks on it see what they see on a real ``lm_head``."""

    def __init__(self, vocab: int, hidden: int):
        super().__init__()
        self.weight = torch.empty(vocab, hidden, device="meta")  # the shape only, for code that asks for it

    def forward(self, hidden: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        return logits


class OnnxCausalLM(nn.Module, GenerationMixin):
    """A causal LM run by ONNX Runtime from an :func:`export`, usable with ``generate`` like the original.

    It is a module with transformers' generation mixin, not a ``PreTrainedModel``: importing that class imports
    transformers' model-loading code (1-2 s on the 2-core CPU, docs/generation.md "Start-up"), none of which runs
    here. What ``generate`` asks of a model beyond the mixin is below."""

    _supports_cache_class = True
    _is_stateful = False
    main_input_name = "input_ids"
    base_model_prefix = "model"
    hf_quantizer = None

    def __init__(self, config: PretrainedConfig, onnx_dir: Path, generation_config: GenerationConfig | None = None,
                 threads: int | None = None):
        super().__init__()
        self.config = copy.deepcopy(config)
        self.config._attn_implementation = "eager"  # attention runs inside ONNX Runtime; transformers picks none
        self.generation_config = generation_config or GenerationConfig.from_model_config(self.config)
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or torch.get_num_threads()
        # ONNX Runtime's workers spin after each run by default, on the same cores where torch then runs the
        # logits processors: off, the per-step work outside the model costs ~half as much (docs/generation.md)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = onnxruntime.InferenceSession(str(onnx_dir / "model.onnx"), options)
        inputs = {i.name: i for i in self.session.get_inputs()}
        self.past_names = [name for name in inputs if name.startswith("past_key_values.")]
        self.present_names = [name.replace("past_key_values", "present") for name in self.past_names]
        text = self.config.get_text_config()
        self.kv_shape = (inputs[self.past_names[0]].shape[1], text.hidden_size // text.num_attention_heads)
        logits = next(o for o in self.session.get_outputs() if o.name == "logits")
        self.lm_head = OutputHead(logits.shape[-1], text.hidden_size)

    @classmethod
    def can_generate(cls) -> bool:
        return True

    @classmethod
    def is_remote_code(cls) -> bool:
        return False

    def get_encoder(self, modality: str | None = None) -> None:
        return None

    def get_experts_implementation(self) -> dict[str, str | None]:
        return {"": None}  # no mixture-of-experts layers for generate to switch

    @property
    def device(self) -> torch.device:
        return torch.device("cpu")

    @property
    def dtype(self) -> torch.dtype:
        return torch.float32

    def get_output_embeddings(self) -> nn.Module:
        return self.lm_head

    def generate(self, *args, **kwargs):
        # The ONNX model keeps its own key/value arrays: whatever cache the caller asked for is replaced by one, unless
        # it is one of them (a redraw continues from the cache of the call before: spg.generation.redraw).
        kwargs.pop("cache_implementation", None)
        if not isinstance(kwargs.get("past_key_values"), OnnxCache):
            budget = kwargs.get("max_new_tokens") or self.generation_config.max_new_tokens or 0
            kwargs["past_key_values"] = OnnxCache(budget)
        # The model runs on ONNX Runtime's own threads; torch only runs the logits processors between two runs, on
        # vocabulary-sized vectors one thread handles in a fraction of a millisecond. With more threads each of those
        # small operations waits for every one of them, and on a machine busy with other work a vector operation
        # took 30 ms instead of 0.2 (docs/generation.md, "CPU decoding").
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return super().generate(*args, **kwargs)
        finally:
            torch.set_num_threads(threads)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                past_key_values: OnnxCache | None = None, **kwargs) -> CausalLMOutputWithPast:
        cache = past_key_values if past_key_values is not None else OnnxCache()
        batch, new = input_ids.shape
        if attention_mask is None:
            attention_mask = torch.ones(batch, cache.length + new, dtype=torch.long)
        cache.room_for(self.past_names, (batch, *self.kv_shape), new)
        lengths = attention_mask.sum(1)
        if batch > 1 and new > 1:  # a left-padded prompt: each row's real tokens alone, into its slice of the cache
            if cache.length:
                raise ValueError("OnnxCausalLM continues a cache one row at a time")
            runs = [self._run(input_ids[row : row + 1, new - int(lengths[row]) :], None, cache, row) for row in range(batch)]
            hidden, logits = (np.concatenate([run[i][:, -1:] for run in runs]) for i in (0, 1))
        else:  # the attention reads each row's length from its mask: its ones first
            right = torch.arange(attention_mask.shape[1]) < lengths[:, None]
            hidden, logits = self._run(input_ids, right, cache)
        cache.length += new
        logits = self.lm_head(torch.from_numpy(hidden), torch.from_numpy(logits))
        return CausalLMOutputWithPast(logits=logits, past_key_values=cache)

    def _run(self, input_ids: torch.Tensor, mask: torch.Tensor | None, cache: OnnxCache,
             row: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """One ONNX Runtime run on ``input_ids`` with attention ``mask`` (None: all ones after what ``cache`` holds),
        writing keys and values into the cache's buffers (only row ``row``'s, when given): (hidden states, logits)."""
        if mask is None:
            mask = torch.ones(input_ids.shape[0], cache.length + input_ids.shape[1], dtype=torch.long)
        # The cache's buffers are bound once and kept bound while they stay where they are: binding 2 per layer anew
        # cost ~0.4 ms a step on the 2-core CPU, host time outside the forward (issue 41). A row's slice is bound apart.
        binding = cache.binding if row is None else None
        if binding is None:
            binding = self.session.io_binding()
            for past, present in zip(self.past_names, self.present_names, strict=True):
                buffer = cache.buffers[past]  # the same memory in and out: attention appends in place
                if row is not None:
                    buffer = buffer[row : row + 1]  # the first axis: one row's slice is contiguous
                binding.bind_input(past, "cpu", 0, np.float32, list(buffer.shape), buffer.ctypes.data)
                binding.bind_output(present, "cpu", 0, np.float32, list(buffer.shape), buffer.ctypes.data)
            if row is None:
                cache.binding = binding
        binding.bind_cpu_input("input_ids", input_ids.numpy().astype(np.int64))
        binding.bind_cpu_input("attention_mask", mask.numpy().astype(np.int64))
        # bound anew each run: ONNX Runtime then allocates them anew, where it would write over the last run's arrays,
        # which the caller may still hold (a forward's states, kept until the next: StateRecorder)
        binding.bind_output("hidden_states")
        binding.bind_output("logits")
        self.session.run_with_iobinding(binding)
        outputs = binding.get_outputs()
        return outputs[-2].numpy(), outputs[-1].numpy()
