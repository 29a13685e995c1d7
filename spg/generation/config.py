"""Settings of ``spg generate``: dataclasses read by spg.config from YAML (configs/paper/generate.yaml is the
paper's), flags and a shipped model's own ``generate.yaml``. No torch here: they are checked before it loads."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from spg.config import (
    Flag,
    Invalid,
    at_least,
    check_device,
    check_device_present,
    check_model,
    load_config,
    one_of,
)
from spg.model.config import EMBEDDED, ONNX_WEIGHTS, RUNTIMES, SPGConfig, is_artefact, resolve_artefact
from spg.pretrained import SHIPPED

MODEL_SETTINGS = "generate.yaml"  # an artefact's own decoding defaults
CACHE_IMPLEMENTATIONS = ("auto", "static", "dynamic")
REDRAW_STOPS = ("phrase", "limitation", "claim")  # spg.generation.redraw.ClaimStop
DTYPES = ("auto", "float32", "bfloat16", "float16")
CONSTRAINED_MIN_NEW_TOKENS = 4  # spg.generation.constrained.StructureLogitsProcessor


@dataclass(frozen=True)
class DecodeSettings:
    """How spg.generation.pointer_decode decodes; paper evaluation settings by default (appendix "Evaluation
    Settings"). A new decoding option is one field here (its YAML key), its line in docs/generation.md and, if it
    has one, its flag in spg/cli/generate.py (docs/contributing.md)."""

    max_new_tokens: int = 1024
    min_new_tokens: int = 0
    do_sample: bool = True
    temperature: float = 0.1
    no_repeat_ngram_size: int = 0  # 0: off; else no n-gram twice inside one claim (spg.generation.repetition)
    repetition_penalty: float = 1.0  # transformers' (1.0: off); it also penalises the prompt's tokens
    boundary_temperature: float | None = None  # None: off; else the token after a claim ends is sampled at it
    # transformers' KV cache. A static one is what makes transformers compile the decoding step (CUDA graphs) on
    # CUDA: decoding was bound by Python and kernel launches, not by the GPU (docs/generation.md). "auto" is static
    # where the step is compiled, dynamic elsewhere (kv_cache); greedy outputs are the same either way.
    cache_implementation: str = "auto"
    # With a static cache on CUDA transformers compiles the decoding step (torch.compile, CUDA graphs); False keeps
    # it eager. The first batch of each shape pays the compilation.
    compile: bool = True
    # Fold the LoRA adapter (and the structure-token rows) into the base weights once, at load: the adapter's extra
    # matrix products and Python wrappers then cost nothing per step. Greedy outputs are the same (tested).
    merge_adapters: bool = True
    # transformers asks after every step whether all rows have stopped, which makes the host wait for the device
    # and leaves the GPU idle while Python prepares the next step; it reads the answer one step late on Apple GPUs
    # only. True does the same on CUDA (one extra step when all rows stop early; its token is dropped).
    defer_stop_check: bool = True
    # How the model runs (spg.model.runtime): torch is the transformers model as loaded; onnx is ONNX Runtime
    # on a float32 export (CPU only); auto is onnx on a float32 CPU for the embedded model's artefacts, else torch.
    runtime: str = "auto"
    # Prompt lookup (transformers' assisted generation with drafts copied from the prompt and the output so far): a
    # step checks up to this many drafted tokens in one forward and keeps those the model would have chosen itself,
    # so outputs are the same token for token, greedy or sampled (spg.generation.sampling). Claims copy the
    # description and restate earlier claims, so drafts are often right, and on a CPU a forward over a few tokens
    # costs little more than over one (docs/generation.md, "CPU decoding"). None: auto, 5 where a batch holds one
    # document on the CPU (transformers drafts for one row only), off elsewhere; 0: off.
    prompt_lookup_tokens: int | None = None
    # Checker in the loop (spg.generation.redraw): as each claim closes, spg lint's claim-level checks run on the claims
    # so far, and a claim with a blocking finding (REDRAW_RULES, or a structure error) is rolled back to its start and
    # drawn again. ``redraws``: claims redrawn per document at most (0: the checker is off and decoding is as without
    # it); ``redraw_tokens``: tokens of rejected claims per document at most (None: max_new_tokens). When either is
    # spent, the claim set ends at its last good claim. Redraws sample at ``redraw_temperature`` with a key derived
    # from the document and the attempt, so greedy and seeded runs stay deterministic.
    redraws: int = 4
    redraw_tokens: int | None = None
    redraw_temperature: float = 0.8
    # Where a claim still being written is checked, so that one the checker will reject stops there, not at its end
    # (one document at a time, and every redraw): "phrase", at each phrase's end (a comma) for the findings a claim
    # keeps once a phrase draws them (spg.generation.redraw.PHRASE_RULES) and at each limitation's end (";", ":") for
    # those it cannot lose (PARTIAL_RULES); "limitation", at limitation ends only; "claim", only once it closes. The
    # claims printed are the same whichever (the redraw keys do not depend on where a rejected claim stopped) as long
    # as no claim that passes draws one of those findings part-way, and ``redraw_tokens`` does not bind (a claim
    # stopped early spends less of it) (docs/generation.md, "Checker in the loop").
    redraw_stop_at: str = "phrase"
    # How the checker in the loop and the lint printed after each draft read restatement, as ``spg lint
    # --restatement``: "rules", the word rules alone; "read", the learned restatement reader too, whose finding then
    # blocks a claim as not-further-limiting does (spg.generation.redraw.READ_RULES; docs/generation.md).
    restatement: str = "rules"
    # While decoding, the token that would complete a word-for-word copy of an earlier limitation (the text between
    # two semicolons or colons) of the same claim is banned (spg.generation.repetition.NoRepeatedLimitation).
    block_repeated_limitations: bool = True
    # The weights the onnx runtime runs for an artefact on the embedded backbone: float32, the merged model; blocks,
    # the GGUF's own 4-bit blocks with the adapters beside them (spg.model.gguf_blocks: the trained model up to
    # float32 rounding, half the file; on the 2-core CPU no faster a step than float32, docs/generation.md).
    onnx_weights: str = "float32"
    # Reproducible decoding on a GPU (docs/generation.md, "Reproducible decoding"): torch's deterministic algorithms,
    # cuBLAS's fixed workspace (CUBLAS_WORKSPACE_CONFIG), cuDNN's deterministic kernels, and the decoding step eager
    # (no compiled step, no CUDA graphs, dynamic cache), so that two greedy runs of the same input and batch on the same
    # GPU give the same claims. It costs the compiled step's speed. The CPU repeats exactly either way.
    deterministic: bool = False

    @property
    def compiled(self) -> bool:
        """Whether the decoding step may be compiled where transformers compiles it (``compile``, not ``deterministic``)."""
        return self.compile and not self.deterministic

    def check(self) -> None:
        """What decoding would fail on, or silently misread, rejected before a model loads."""
        at_least("max_new_tokens", self.max_new_tokens, 1)
        at_least("min_new_tokens", self.min_new_tokens, 0)
        if self.do_sample and not self.temperature > 0:
            raise Invalid("temperature", f"must be above 0 when sampling (--greedy does not sample), got "
                                         f"{self.temperature}")
        at_least("no_repeat_ngram_size", self.no_repeat_ngram_size, 0, " (0: off)")
        if not self.repetition_penalty > 0:
            raise Invalid("repetition_penalty", f"must be above 0 (1.0: off), got {self.repetition_penalty}")
        if self.boundary_temperature is not None and not self.boundary_temperature > 0:
            raise Invalid("boundary_temperature", f"must be above 0, got {self.boundary_temperature}")
        one_of("cache_implementation", self.cache_implementation, CACHE_IMPLEMENTATIONS)
        one_of("runtime", self.runtime, RUNTIMES)
        one_of("onnx_weights", self.onnx_weights, ONNX_WEIGHTS)
        at_least("prompt_lookup_tokens", self.prompt_lookup_tokens, 0, " (0: off)")
        at_least("redraws", self.redraws, 0, " (0: off)")
        at_least("redraw_tokens", self.redraw_tokens, 0)
        if not self.redraw_temperature > 0:
            raise Invalid("redraw_temperature", f"must be above 0, got {self.redraw_temperature}")
        one_of("redraw_stop_at", self.redraw_stop_at, REDRAW_STOPS)
        from spg.lint.check import RESTATEMENT_MODES  # here, not above: importing spg.lint costs 0.3 s

        one_of("restatement", self.restatement, RESTATEMENT_MODES)


@dataclass(frozen=True)
class GenerateConfig:
    """Defaults: the paper's evaluation settings (appendix "Evaluation Settings"), constrained decoding on. Its
    YAML keys are its own fields and those of ``decode`` (spg.config flattens a held dataclass)."""

    model: str = "spg-smollm2"  # shipped SPG model (spg.pretrained), SPG artefact dir, or HF chat model name/path
    zero_shot: bool = False
    constrained: bool | None = None  # None: on for tagged SPG models (the product default), off otherwise
    max_prompt_tokens: int = 7168  # 8,192 context − 1,024 new tokens
    batch_size: int | None = None  # None: 4 on the CPU, 16 on a GPU (decoding there is nearly free per extra row)
    # Decode the longest prompts first: each batch then holds prompts of similar length (less padding), and on CUDA
    # the first batch's static cache serves all later ones, so the compiled step is never re-traced. Results are
    # appended in that order (they are keyed by id); False keeps the input order.
    sort_by_length: bool = True
    seed: int = 0
    dtype: str = "auto"  # bfloat16 on a CUDA device that supports it, float32 elsewhere
    device: str | None = None  # default: cuda when available, else cpu
    decode: DecodeSettings = field(default_factory=DecodeSettings)

    def check(self) -> None:
        self.decode.check()
        at_least("max_prompt_tokens", self.max_prompt_tokens, 2)
        at_least("batch_size", self.batch_size, 1)
        if not -(2**63) <= self.seed < 2**64:
            raise Invalid("seed", f"must be a 64-bit integer, got {self.seed}")
        one_of("dtype", self.dtype, DTYPES)
        check_device("device", self.device)

    def check_available(self) -> None:
        from spg.generation.prompts import frame_before_loading
        from spg.model.prompt import check_room

        check_model("model", self.model, shipped=(EMBEDDED, *SHIPPED))
        check_device_present("device", self.device)
        if self.is_constrained():
            at_least("max_new_tokens", self.decode.max_new_tokens, CONSTRAINED_MIN_NEW_TOKENS,
                     " for constrained decoding (the shortest forest, <ind> x </ind> <eot>)")
            if self.decode.min_new_tokens >= self.decode.max_new_tokens:
                # the forest must end with <eot> within the budget, which min_new_tokens forbids until it is spent
                raise Invalid("min_new_tokens", f"must be below max_new_tokens ({self.decode.max_new_tokens}) for "
                                                f"constrained decoding, got {self.decode.min_new_tokens}")
        frame = frame_before_loading(self.model, self.zero_shot)
        if frame is not None:
            check_room(self.model, self.max_prompt_tokens, frame)

    def is_constrained(self) -> bool:
        """``constrained``, or by default: whether the model is a tagged SPG model (read from its spg_config.json)."""
        if self.constrained is not None:
            return self.constrained
        return not self.zero_shot and is_artefact(self.model) and SPGConfig.load(resolve_artefact(self.model)).tagged

    @classmethod
    def load(cls, path: str | Path | None = None, flags: Sequence[Flag] = ()) -> GenerateConfig:
        """The settings of one ``spg generate`` run: the paper's < the chosen model's own ``generate.yaml`` (the
        decoding chosen for it on the dev split, like transformers' generation_config.json) < ``path`` < flags."""
        model = load_config(cls, path, flags=flags, checked=False).model
        return load_config(cls, path, flags=flags, base=model_settings(model), available=True)

    def batch_size_on(self, device_type: str) -> int:
        """Documents decoded together: ``batch_size``, else 4 on the CPU and 16 on an accelerator."""
        return self.batch_size or (4 if device_type == "cpu" else 16)

    def replace(self, **changes) -> GenerateConfig:
        return dataclasses.replace(self, **changes)


def model_settings(model: str) -> Path | None:
    """A shipped or trained SPG model's own ``generate.yaml``, if it has one."""
    own = resolve_artefact(model) / MODEL_SETTINGS if is_artefact(model) else None
    return own if own is not None and own.is_file() else None
