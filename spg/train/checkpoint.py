"""The one way both stages' trainers save a model: what training changed, not the resized embedding matrices.

Adding the six structure tokens grows the vocabulary, and on a grown vocabulary PEFT's default
``save_embedding_layers="auto"`` writes both full embedding matrices into every ``checkpoint-N`` (~2 GB each on
Llama-3-8B). They are not needed: the trained tag rows travel in the adapter (``trainable_token_indices``) and
every other row is rebuilt identically on reload (Stage I: base rows + the mean-initialised tag rows; Stage II:
the merged Stage I model the adapter was trained on).
"""

from __future__ import annotations

import os

import torch
from transformers import Trainer
from transformers.trainer import TRAINING_ARGS_NAME

from spg.train.parallel import check_parallelism


class AdapterCheckpointTrainer(Trainer):
    """A Trainer whose checkpoints and ``save_model`` hold the adapter without the embedding matrices.

    The model (a ``PeftModel`` or an :class:`spg.model.spg_model.SPGModel`) must accept ``save_embedding_layers``.
    A layout whose parameters it could not save whole (FSDP, ZeRO-3) is refused when the trainer is built.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        plugin = self.accelerator.state.deepspeed_plugin
        check_parallelism(self.accelerator.distributed_type, self.args.n_gpu, plugin.zero_stage if plugin else None)

    # Trainer._save is private: the public save_model routes TPU, FSDP and DeepSpeed to it, and checkpoints reach the
    # model only through it. tests/test_transformers_internals.py fails, naming it, if transformers changes that.
    def _save(self, output_dir: str | None = None, state_dict=None) -> None:
        output_dir = output_dir or self.args.output_dir
        if not self.args.should_save:
            return
        self.accelerator.unwrap_model(self.model).save_pretrained(output_dir, save_embedding_layers=False)
        if self.processing_class is not None:
            self.processing_class.save_pretrained(output_dir)
        torch.save(self.args, os.path.join(output_dir, TRAINING_ARGS_NAME))
