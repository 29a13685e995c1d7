"""The one way both stages' trainers save a model (what training changed, not the resized embedding matrices), and
the one way they find the checkpoint to resume from (the newest whole one).

Adding the six structure tokens grows the vocabulary, and on a grown vocabulary PEFT's default
``save_embedding_layers="auto"`` writes both full embedding matrices into every ``checkpoint-N`` (~2 GB each on
Llama-3-8B). They are not needed: the trained tag rows travel in the adapter (``trainable_token_indices``) and
every other row is rebuilt identically on reload (Stage I: base rows + the mean-initialised tag rows; Stage II:
the merged Stage I model the adapter was trained on).
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

import torch
from transformers import Trainer
from transformers.trainer import TRAINER_STATE_NAME, TRAINING_ARGS_NAME
from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR

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


def last_checkpoint(output_dir: str | Path) -> str | None:
    """The newest ``checkpoint-N`` in ``output_dir`` that the Trainer finished writing, or None.

    transformers' ``get_last_checkpoint`` takes the newest folder, whole or not; a run killed while saving leaves
    one without its ``trainer_state.json``, which the Trainer writes last, and resuming from it fails or loads
    half a model. Such a folder is passed over, and said.
    """
    folder = Path(output_dir)
    if not folder.is_dir():
        return None
    pattern = re.compile(rf"{PREFIX_CHECKPOINT_DIR}-(\d+)")
    found = sorted(((int(m.group(1)), p) for p in folder.iterdir() if (m := pattern.fullmatch(p.name)) and p.is_dir()),
                   reverse=True)
    for _, checkpoint in found:
        if (checkpoint / TRAINER_STATE_NAME).is_file():
            return str(checkpoint)
        logging.getLogger(__name__).warning("%s: no %s (a run was killed while saving it); not resumed from",
                                            checkpoint, TRAINER_STATE_NAME)
    return None
