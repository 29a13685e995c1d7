"""What both training stages need to run data-parallel, chosen by spg rather than left to the user (docs/training.md,
"Launching on several GPUs").

A stage launched by ``accelerate launch`` or ``torchrun`` runs one process per device; ``transformers.Trainer`` wraps
the model in DDP, shards the batches and averages the gradients, and only the main process writes. Two settings
it cannot guess for spg are given here, and :func:`check_parallelism` refuses the layouts spg does not train under.
"""

from __future__ import annotations

import os

import torch
from accelerate.utils import DistributedType


def launched_processes() -> int:
    """How many processes the launcher started (``WORLD_SIZE``, set by torchrun and accelerate launch); 1 if none."""
    return int(os.environ.get("WORLD_SIZE", "1"))


def launch_arguments(every_parameter_trained: bool) -> dict[str, object]:
    """``TrainingArguments`` fields a data-parallel run needs; a config's ``extra_training_args`` override them.

    * Without CUDA, processes started by a launcher train on the CPU over gloo. Left alone, accelerate finds no
      device to distribute over, leaves the model unwrapped, and each process trains a model of its own.
    * ``ddp_find_unused_parameters`` only where a trainable parameter can get no gradient (the pointer head when
      γ = η = 0): DDP then walks the autograd graph at every step to find it, a cost the other runs do not pay.
      (The Trainer's default for a model that is not a ``PreTrainedModel``, as both stages' are, is to search.)
    """
    arguments: dict[str, object] = {"ddp_find_unused_parameters": not every_parameter_trained}
    if launched_processes() > 1 and not torch.cuda.is_available():
        arguments.update(use_cpu=True, ddp_backend="gloo")
    return arguments


def check_parallelism(distributed_type: DistributedType, n_gpu: int, zero_stage: int | None) -> None:
    """Refuse, before training, the layouts whose weights spg cannot save or train correctly.

    ``n_gpu > 1`` is Trainer's ``nn.DataParallel`` (several GPUs visible, no launcher): spg trains one process per
    GPU instead, because DataParallel's replicas share the hook that records Stage I's pointer states. FSDP and
    ZeRO-3 shard the parameters, while the adapter checkpoints (:class:`spg.train.checkpoint.AdapterCheckpointTrainer`)
    read them whole.
    """
    if n_gpu > 1:
        raise ValueError(
            f"{n_gpu} GPUs are visible but the run was not launched data-parallel: start it with `accelerate launch "
            f"--config_file configs/accelerate/ddp.yaml --num_processes {n_gpu} -m spg.cli train ...`, or choose one "
            "GPU with CUDA_VISIBLE_DEVICES=0"
        )
    if distributed_type == DistributedType.FSDP or zero_stage == 3:
        layout = "FSDP" if distributed_type == DistributedType.FSDP else "DeepSpeed ZeRO-3"
        raise ValueError(
            f"{layout} shards the parameters, and spg saves its adapters from whole ones: use DDP "
            "(configs/accelerate/ddp.yaml) or ZeRO-2 (configs/accelerate/deepspeed-zero2.yaml)"
        )
