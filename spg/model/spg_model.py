"""SPGModel: any Hugging Face causal LM + PEFT LoRA + the structure tokens + the pointer head W_dep.

What other parts of spg use (generation, Stage II):

    model = SPGModel.from_pretrained("runs/stage1/final")   # an artefact dir written by save_pretrained
    model.tokenizer                                          # has the six tags as single special tokens
    model.structure_ids                                      # {"<ind>": id, "</ind>": id, "<dep>": ..., "<eot>": ...}
    model.lm                                                 # the PeftModel: call .generate(...) on it
    model.score_parents(h_dep, h_ends)                       # Eq. 2 logits: [..., d] x [..., m, d] -> [..., m]
    with model.record_hidden() as states:                    # last-layer hidden states of every forward,
        model.lm.generate(...)                               # one [B, T_step, d] tensor per call, in order
    model.last_hidden_state                                  # those of the latest forward only

Hidden states are the input of the output embedding (after the final norm), captured by a forward
pre-hook on it, i.e. exactly the states the logits are computed from: no second forward and no
``output_hidden_states`` copy of every layer. Under ``generate`` the prefill step only computes the
last position's logits, so only that position's state is captured there; every generated token's
state is captured at the step that feeds it.

Training (Stage I): ``model(**batch)`` with a batch from :class:`spg.model.batch.Collator` returns
an :class:`SPGOutput` with per-example L_LM, L_struct (Eq. 3), L_scope (Eq. 4) and teacher-forced
pointer hits; :func:`spg.model.losses.stage1_loss` combines them (Eq. 6).

Artefact directory (``save_pretrained``): the PEFT adapter (LoRA + the structure-token rows of the
embedding and output matrices via ``trainable_token_indices``), ``pointer_head.safetensors``,
``spg_config.json`` (base model, token ids, prompt settings, scope geometry) and the tokenizer.

A Stage II artefact has the same files (its adapter is the Stage II LoRA; pointer head and tokenizer are
copies of Stage I's) and names its Stage I artefact in ``spg_config.json``'s ``stage1`` instead of carrying
merged weights: loading it loads Stage I, merges Stage I into its base in memory, then attaches the adapter.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from safetensors.torch import load_file, save_file
from torch import nn
from transformers import PreTrainedTokenizerBase
from transformers.utils import ModelOutput

from spg.forest import Forest
from spg.model.backbone import load_backbone
from spg.model.batch import build_example
from spg.model.config import (  # noqa: F401
    CONFIG_NAME,
    ModelSource,
    SPGConfig,
    describe,
    is_artefact,
    portable_path,
    resolve_artefact,
    tokenizer_folder,
)
from spg.model.losses import lm_loss
from spg.model.norm import aux_states
from spg.model.pointer import PointerHead, candidate_mask, pointer_hits, pointer_logits, structure_loss
from spg.model.scope import claim_means, scope_loss
from spg.model.tokenizer import load_tokenizer
from spg.model.tokens import add_structure_tokens

if TYPE_CHECKING:  # PEFT is imported where adapters are built or loaded: a merged model never needs it (2 s)
    from peft import LoraConfig, PeftModel
    from transformers import PreTrainedModel

POINTER_NAME = "pointer_head.safetensors"


@dataclass
class SPGOutput(ModelOutput):
    """Per-example Stage I terms ([B] each) plus logits, last-layer hidden states and pointer logits."""

    logits: torch.Tensor | None = None
    hidden: torch.Tensor | None = None
    lm_loss: torch.Tensor | None = None
    struct_loss: torch.Tensor | None = None
    scope_loss: torch.Tensor | None = None
    pointer_logits: torch.Tensor | None = None
    pointer_correct: torch.Tensor | None = None
    pointer_total: torch.Tensor | None = None


def lora_config(config: SPGConfig, token_ids: list[int], tied: bool) -> LoraConfig:
    """LoRA on the configured linears; the structure-token rows of the embeddings trained and saved with it."""
    # Untied output embeddings need their own rows trained, or all six tags would share one logit row.
    from peft import LoraConfig

    rows = {"embed_tokens": token_ids} if tied else {"embed_tokens": token_ids, "lm_head": token_ids}
    return LoraConfig(
        r=config.lora_r,
        lora_alpha=config.lora_alpha,
        lora_dropout=config.lora_dropout,
        target_modules=config.lora_target_modules,
        trainable_token_indices=rows,
        task_type="CAUSAL_LM",
    )


class SPGModel(nn.Module):
    """The Stage I model. Build a fresh one with :meth:`from_base`, load a trained one with :meth:`from_pretrained`."""

    def __init__(self, lm: PeftModel | PreTrainedModel, tokenizer: PreTrainedTokenizerBase, pointer: PointerHead, config: SPGConfig):
        super().__init__()
        self.lm = lm
        self.pointer = pointer
        self.tokenizer = tokenizer
        self.spg_config = config
        self._recorders: list[list[torch.Tensor]] = []
        self.last_hidden_state: torch.Tensor | None = None
        self._hook = lm.get_output_embeddings().register_forward_pre_hook(self._capture)

    # ---- construction -------------------------------------------------------------------------
    @classmethod
    def from_base(
        cls,
        config: SPGConfig,
        base: PreTrainedModel | None = None,
        tokenizer: PreTrainedTokenizerBase | None = None,
        dtype: torch.dtype = torch.float32,
    ) -> SPGModel:
        """A new model: load ``config.base_model`` (or take ``base`` + ``tokenizer``), add tags, attach LoRA."""
        from peft import get_peft_model

        if base is None:
            base, tokenizer = load_backbone(config.base_model, dtype)
        ids = add_structure_tokens(tokenizer, base)
        config.structure_token_ids = ids
        tied = base.get_output_embeddings().weight is base.get_input_embeddings().weight
        lm = get_peft_model(base, lora_config(config, sorted(ids.values()), tied))
        pointer = PointerHead(base.config.get_text_config().hidden_size, config.aux_state_norm, config.pointer_query)
        return cls(lm, tokenizer, pointer, config)

    @classmethod
    def from_pretrained(
        cls,
        directory: str | Path | ModelSource,
        base: PreTrainedModel | None = None,
        dtype: torch.dtype = torch.float32,
        is_trainable: bool = False,
    ) -> SPGModel:
        """Reload an artefact dir, a model shipped with spg by name, or the artefact a description names
        (spg.model.config.describe), the long way: its base (the one its chain sits on, unless ``base`` is given) with
        the structure tokens, each adapter of its chain below its own merged into it in turn (a Stage II sits on its
        Stage I: one copy of the weights, and switching its adapter off gives Stage I back), its own adapter on top,
        and its pointer head around it (:meth:`around`).
        """
        from peft import PeftModel

        source = directory if isinstance(directory, ModelSource) else describe(directory)
        if source.directory is None:
            raise FileNotFoundError(f"{Path(source.name) / CONFIG_NAME} not found: {source.name} is not an SPG model directory")
        tokenizer = load_tokenizer(source.tokenizer)
        if base is None:
            base, _ = load_backbone(source.base, dtype)
        ids = add_structure_tokens(tokenizer, base)  # same rows as at training time, before the adapters land
        if ids != source.config.structure_token_ids:
            raise ValueError(f"{source.directory}: tokenizer gives structure ids {ids}, config says "
                             f"{source.config.structure_token_ids}")
        for stage1 in source.chain[:0:-1]:
            base = PeftModel.from_pretrained(base, stage1).merge_and_unload()
        lm = PeftModel.from_pretrained(base, source.directory, is_trainable=is_trainable)
        return cls.around(source, lm, tokenizer, is_trainable)

    @classmethod
    def around(cls, source: ModelSource, lm: PeftModel | PreTrainedModel, tokenizer: PreTrainedTokenizerBase,
               trainable: bool = False) -> SPGModel:
        """The artefact ``source`` around ``lm``, which carries its adapters (:meth:`from_pretrained`) or has them
        merged already (a ready form, spg.model.ready, or its ONNX export): its pointer head on ``lm``'s hidden
        states. With the adapters merged it is an inference model, with no adapter to switch off."""
        hidden = lm.config.get_text_config().hidden_size
        pointer = PointerHead.load(source.directory / POINTER_NAME, hidden, source.config, trainable)
        return cls(lm, tokenizer, pointer, source.config).to(lm.device)

    def merge_and_unload(self) -> PreTrainedModel:
        """The base model with this adapter (LoRA and structure-token rows) merged in; this SPGModel is spent."""
        self._hook.remove()  # the merged model must not keep feeding (and keeping alive) this wrapper
        return self.lm.merge_and_unload()

    def save_pretrained(self, directory: str | Path, save_embedding_layers: bool = False) -> None:
        """Write the artefact dir; ``save_embedding_layers`` as in ``PeftModel.save_pretrained`` (the Trainer's
        checkpoint save passes it), but never needed: the tag rows travel in the adapter and the rest of the
        resized matrices is rebuilt identically on reload."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.lm.save_pretrained(directory, save_embedding_layers=save_embedding_layers)
        save_file({k: v.contiguous() for k, v in self.pointer.state_dict().items()}, directory / POINTER_NAME)
        self.spg_config.save(directory)
        self.tokenizer.save_pretrained(directory)

    def load_trainable(self, directory: str | Path) -> None:
        """Load adapter + pointer weights saved by :meth:`save_pretrained` into this model (checkpoint resume)."""
        from peft import set_peft_model_state_dict
        from peft.utils import load_peft_weights

        directory = Path(directory)
        set_peft_model_state_dict(self.lm, load_peft_weights(str(directory)))
        self.pointer.load_state_dict(load_file(directory / POINTER_NAME))

    # ---- hidden states ------------------------------------------------------------------------
    def _capture(self, module: nn.Module, args: tuple) -> None:
        self.last_hidden_state = args[0]
        for states in self._recorders:
            states.append(args[0].detach())

    @contextlib.contextmanager
    def record_hidden(self) -> Iterator[list[torch.Tensor]]:
        """Collect the last-layer hidden states of every forward run inside the block (detached)."""
        states: list[torch.Tensor] = []
        self._recorders.append(states)
        try:
            yield states
        finally:
            self._recorders.remove(states)

    @property
    def structure_ids(self) -> dict[str, int]:
        return dict(self.spg_config.structure_token_ids)

    def example(
        self, description: str, claims: Forest, max_length: int | None = None, max_target_tokens: int | None = None
    ) -> dict[str, list[int]]:
        """One document as this model was trained on it: its config's instruction, tags and truncation policy
        (``max_length`` / ``max_target_tokens``: the config's unless given)."""
        config = self.spg_config
        return build_example(
            self.tokenizer, description, claims, max_length or config.max_length,
            max_target_tokens or config.max_target_tokens, tagged=config.tagged, instruction=config.instruction,
            target_truncation=config.target_truncation, description_truncation_side=config.description_truncation_side,
        )

    def score_parents(self, h_dep: torch.Tensor, h_ends: torch.Tensor) -> torch.Tensor:
        """Eq. 2 logits of one ``<dep>`` state [..., d] against candidate closing-tag states [..., m, d] → [..., m]."""
        return self.pointer(h_dep.unsqueeze(-2), h_ends).squeeze(-2).float()

    # ---- training forward ---------------------------------------------------------------------
    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
        claim_mask: torch.Tensor | None = None,
        claim_open: torch.Tensor | None = None,
        claim_close: torch.Tensor | None = None,
        claim_start: torch.Tensor | None = None,
        claim_end: torch.Tensor | None = None,
        claim_parent: torch.Tensor | None = None,
        claim_depth: torch.Tensor | None = None,
        claim_tree: torch.Tensor | None = None,
        structure: bool = True,
    ) -> SPGOutput:
        """One forward; ``structure=False`` skips the pointer and scope terms entirely.

        With ``structure`` on, a batch whose targets hold no complete claim (or no dependent one) still runs the
        pointer and scope terms, over zero claims: they are 0 and W_dep's gradient is 0, not absent. Under DDP every
        process must give every trainable parameter a gradient in every step, and a process whose share of the
        batch had no claim would otherwise leave the pointer head out of its graph and stop the run.
        """
        out = self.lm(input_ids=input_ids, attention_mask=attention_mask, use_cache=False)
        hidden, self.last_hidden_state = self.last_hidden_state, None  # don't keep the graph alive between calls
        result = SPGOutput(logits=out.logits, hidden=hidden)
        if labels is not None:
            result.lm_loss = lm_loss(out.logits, labels)
        if structure and claim_mask is not None:
            mask = candidate_mask(claim_tree, claim_mask)
            logits = pointer_logits(self.pointer, hidden, claim_open, claim_close, mask)
            z = claim_means(aux_states(hidden, self.spg_config.aux_state_norm), claim_start, claim_end)
            result.pointer_logits = logits
            result.struct_loss = structure_loss(logits, claim_parent)
            result.scope_loss = scope_loss(z, claim_parent, claim_depth, self.spg_config.rho, self.spg_config.lam)
            result.pointer_correct, result.pointer_total = pointer_hits(logits, claim_parent)
        return result

    # ---- what transformers.Trainer expects of a model -----------------------------------------
    @property
    def config(self):
        return self.lm.config

    def activation_checkpointing_enable(self, **kwargs) -> None:
        self.lm.base_model.model.activation_checkpointing_enable(**kwargs)
        # With a frozen embedding nothing entering the checkpointed blocks requires grad otherwise.
        self.lm.base_model.model.enable_input_require_grads()
