"""The settings spg chooses for a data-parallel run, the layouts it refuses, and the accelerate configs it ships
(docs/training.md, "Launching on several GPUs"). The launched runs themselves are in tests/test_distributed.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from accelerate.commands.config.config_args import load_config_from_file
from accelerate.utils import DistributedType

from spg.train.parallel import check_parallelism, launch_arguments

REPO = Path(__file__).resolve().parents[1]


def test_a_launched_run_without_cuda_trains_on_the_cpu_over_gloo(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setenv("WORLD_SIZE", "2")
    assert launch_arguments(every_parameter_trained=True) == {
        "ddp_find_unused_parameters": False, "use_cpu": True, "ddp_backend": "gloo",
    }
    monkeypatch.setenv("WORLD_SIZE", "1")  # not launched: the Trainer's own choice of device stands
    assert launch_arguments(every_parameter_trained=True) == {"ddp_find_unused_parameters": False}


def test_ddp_searches_for_unused_parameters_only_when_one_can_get_no_gradient(monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    assert launch_arguments(every_parameter_trained=False)["ddp_find_unused_parameters"] is True
    assert launch_arguments(every_parameter_trained=True)["ddp_find_unused_parameters"] is False


def test_the_l_lm_only_ablation_asks_ddp_to_search_and_the_paper_run_does_not():
    from spg.train.stage1 import Stage1Config

    assert Stage1Config(gamma=0.0, eta=0.0).training_arguments().ddp_find_unused_parameters is True
    assert Stage1Config().training_arguments().ddp_find_unused_parameters is False
    overridden = Stage1Config(extra_training_args={"ddp_find_unused_parameters": True}).training_arguments()
    assert overridden.ddp_find_unused_parameters is True  # the config has the last word


@pytest.mark.parametrize(
    ("distributed_type", "n_gpu", "zero_stage", "message"),
    [
        (DistributedType.FSDP, 1, None, "FSDP shards the parameters"),
        (DistributedType.DEEPSPEED, 1, 3, "DeepSpeed ZeRO-3 shards the parameters"),
        (DistributedType.NO, 4, None, "4 GPUs are visible but the run was not launched data-parallel"),
    ],
)
def test_layouts_whose_adapters_spg_cannot_save_whole_are_refused(distributed_type, n_gpu, zero_stage, message):
    with pytest.raises(ValueError, match=message):
        check_parallelism(distributed_type, n_gpu, zero_stage)


@pytest.mark.parametrize(
    ("distributed_type", "zero_stage"),
    [(DistributedType.NO, None), (DistributedType.MULTI_GPU, None), (DistributedType.MULTI_CPU, None),
     (DistributedType.DEEPSPEED, 2)],
)
def test_ddp_and_zero2_are_accepted(distributed_type, zero_stage):
    check_parallelism(distributed_type, 1, zero_stage)


def test_the_shipped_accelerate_configs_are_ddp_and_deepspeed_zero2():
    ddp = load_config_from_file(str(REPO / "configs/accelerate/ddp.yaml"))
    assert ddp.distributed_type == DistributedType.MULTI_GPU
    zero2 = load_config_from_file(str(REPO / "configs/accelerate/deepspeed-zero2.yaml"))
    assert zero2.distributed_type == DistributedType.DEEPSPEED
    deepspeed = json.loads((REPO / zero2.deepspeed_config["deepspeed_config_file"]).read_text())
    assert deepspeed["zero_optimization"]["stage"] == 2
    # Every batch and precision setting is the Trainer's to fill from the spg config, never fixed in this file.
    assert {deepspeed[key] for key in ("train_batch_size", "train_micro_batch_size_per_gpu",
                                       "gradient_accumulation_steps", "gradient_clipping")} == {"auto"}
